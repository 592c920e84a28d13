print("writer-bench: not yet written")
