"""The query side of scripts/bench-search: GET /api/v1/search on a gateway, one request at a time over one
kept-alive connection, from a mix of queries as agents type them; prints one JSON line per class of query
and one for all, with p50/p95/p99 in milliseconds and the results' mean count.

  python3 search_bench.py --port PORT --secret SECRET --workspace UUID --vocabulary WORD,WORD,...
                          [--per-class 200] [--seed 1]

The vocabulary is the seeding's, most frequent first (scripts/bench-search writes both), so each class
is defined by how many messages its words match, not by the words themselves.
"""
import argparse
import base64
import hashlib
import hmac
import http.client
import json
import random
import time
import urllib.parse


def token(secret, workspace):
    def part(value):
        return base64.urlsafe_b64encode(json.dumps(value, separators=(",", ":")).encode()).rstrip(b"=").decode()
    now = int(time.time())
    claims = {"sub": "bench-operator", "role": "operator", "workspace_id": workspace, "name": "Bench",
              "iat": now, "exp": now + 3600}
    signing_input = part({"alg": "HS256", "typ": "JWT"}) + "." + part(claims)
    signature = hmac.new(secret.encode(), signing_input.encode(), hashlib.sha256).digest()
    return signing_input + "." + base64.urlsafe_b64encode(signature).rstrip(b"=").decode()


def classes(vocabulary, rng):
    """Query makers by class: what an agent types, from the rarest match to the most common."""
    common, middle = vocabulary[:5], vocabulary[20:60]
    return {
        "order number (#NNNNN)": lambda: f"#{rng.randint(10000, 99999)}",
        "rare word (itemNNNNN)": lambda: f"item{rng.randint(0, 49999)}",
        "mid-frequency word": lambda: rng.choice(middle),
        "two words": lambda: f"{rng.choice(middle)} {rng.choice(middle)}",
        "phrase": lambda: f'"{rng.choice(middle)} {rng.choice(vocabulary[:40])}"',
        "most common words": lambda: rng.choice(common),
    }


def percentile(sorted_values, share):
    if not sorted_values:
        return 0.0
    index = min(len(sorted_values) - 1, max(0, int(round(share * len(sorted_values) + 0.5)) - 1))
    return sorted_values[index]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--secret", required=True)
    parser.add_argument("--workspace", required=True)
    parser.add_argument("--vocabulary", required=True)
    parser.add_argument("--per-class", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    options = parser.parse_args()
    rng = random.Random(options.seed)
    vocabulary = options.vocabulary.split(",")
    makers = classes(vocabulary, rng)
    plan = [name for name in makers for _ in range(options.per_class)]
    rng.shuffle(plan)
    headers = {"Authorization": f"Bearer {token(options.secret, options.workspace)}"}
    connection = http.client.HTTPConnection("127.0.0.1", options.port, timeout=30)
    # Warm-up: the gateway's reader connections and PostgreSQL's plan caches, not measured.
    for name in list(makers)[:3] * 5:
        connection.request("GET", "/api/v1/search?limit=20&q=" + urllib.parse.quote(makers[name]()), headers=headers)
        connection.getresponse().read()
    timings = {name: [] for name in makers}
    found = {name: 0 for name in makers}
    for name in plan:
        query = makers[name]()
        started = time.perf_counter()
        connection.request("GET", "/api/v1/search?limit=20&q=" + urllib.parse.quote(query), headers=headers)
        response = connection.getresponse()
        body = response.read()
        elapsed = (time.perf_counter() - started) * 1000
        if response.status != 200:
            raise SystemExit(f"search for {query!r}: HTTP {response.status} {body[:200]!r}")
        timings[name].append(elapsed)
        count = len(json.loads(body)["results"])
        found[name] += count
        # The seeding puts each mid-frequency word in thousands of messages: a page is always full.
        if name == "mid-frequency word" and count != 20:
            raise SystemExit(f"search for {query!r}: {count} results, not a full page of 20")
    every = sorted(t for values in timings.values() for t in values)
    for name, values in list(timings.items()) + [("all", every)]:
        values = sorted(values)
        count = len(values)
        results = sum(found.values()) if name == "all" else found[name]
        print(json.dumps({"kind": "search", "class": name, "queries": count,
                          "p50_ms": round(percentile(values, 0.50), 2), "p95_ms": round(percentile(values, 0.95), 2),
                          "p99_ms": round(percentile(values, 0.99), 2), "max_ms": round(values[-1], 2),
                          "mean_results": round(results / count, 1)}), flush=True)


if __name__ == "__main__":
    main()
