"""One abusive client address: a connection flood that is also a slow-loris.

From `source` (a loopback address other than the harness's), new connections
are opened at `rate` per second, each sending a request head one byte every
`drip_s` seconds and never finishing it. The gateway refuses most at accept
(429: over the address's connection limit or its rate); the ones it holds stay
until its header timeout. Every answer is read and the socket closed when the
gateway closes it, so the flood never runs out of descriptors on its side.

    python3 abuser.py PORT SECONDS [--source 127.0.0.2] [--rate 1000] [--drip-s 5] [--alternate S]

--alternate S attacks only in the B windows of S seconds on the wall clock
(the windows go A B B A A B B A: window w = floor(time / S) is B when
(w + 1) // 2 is odd) and closes every connection it holds when an A window
begins, so that `loadtest --alternate S` compares the A windows (no abuser)
with the B ones within one run. Prints one JSON line of counts when done.
"""
import argparse
import errno
import json
import resource
import selectors
import socket
import time

HEAD = b"GET /healthz HTTP/1.1\r\nHost: abuser\r\nX-Padding: " + b"x" * 64


class Attempt:
    __slots__ = ("sock", "sent", "next_drip", "answer")

    def __init__(self, sock, now):
        self.sock, self.sent, self.next_drip, self.answer = sock, 0, now, b""


def attacking(alternate):
    return alternate <= 0 or (int(time.time() // alternate) + 1) // 2 % 2 == 1


def run(port, seconds, source, rate, drip_s, alternate=0, max_open=4000):
    selector = selectors.DefaultSelector()
    counts = {"attempts": 0, "connect_failed": 0, "answered_429": 0, "answered_503": 0, "answered_408": 0,
              "answered_other": 0, "closed_unanswered": 0, "max_held": 0, "skipped_at_max_open": 0,
              "closed_at_window_end": 0}
    open_attempts = {}
    start = time.monotonic()
    next_open = start
    while True:
        now = time.monotonic()
        if now >= start + seconds:
            break
        if not attacking(alternate):
            # A window without the abuser: nothing of it stays open, and nothing is owed.
            for attempt in list(open_attempts.values()):
                selector.unregister(attempt.sock)
                attempt.sock.close()
                counts["closed_at_window_end"] += 1
            open_attempts.clear()
            next_open = now
            time.sleep(0.01)
            continue
        while next_open <= now:
            next_open += 1.0 / rate
            if len(open_attempts) >= max_open:
                counts["skipped_at_max_open"] += 1
                continue
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setblocking(False)
            try:
                sock.bind((source, 0))
                code = sock.connect_ex(("127.0.0.1", port))
            except OSError:
                code = -1
            counts["attempts"] += 1
            if code not in (0, errno.EINPROGRESS):
                counts["connect_failed"] += 1
                sock.close()
                continue
            attempt = Attempt(sock, now)
            open_attempts[sock.fileno()] = attempt
            selector.register(sock, selectors.EVENT_READ, attempt)
        # The drip: one more byte of the head from every held connection that is due.
        for attempt in list(open_attempts.values()):
            if attempt.next_drip <= now and attempt.sent < len(HEAD):
                try:
                    attempt.sock.send(HEAD[attempt.sent:attempt.sent + 1], socket.MSG_NOSIGNAL)
                    attempt.sent += 1
                except (BlockingIOError, InterruptedError):
                    pass
                except OSError:
                    finish(selector, open_attempts, attempt, counts)
                    continue
                attempt.next_drip = now + drip_s
        counts["max_held"] = max(counts["max_held"], len(open_attempts))
        timeout = max(0.0, min(next_open, start + seconds) - time.monotonic())
        for key, _ in selector.select(timeout=min(timeout, 0.05)):
            attempt = key.data
            try:
                data = attempt.sock.recv(4096)
            except (BlockingIOError, InterruptedError):
                continue
            except OSError:
                data = b""
            if data:
                attempt.answer += data[:64]
            else:
                finish(selector, open_attempts, attempt, counts)
    counts["held_at_end"] = len(open_attempts)
    for attempt in list(open_attempts.values()):
        selector.unregister(attempt.sock)
        attempt.sock.close()
    counts["seconds"] = round(time.monotonic() - start, 2)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    counts["cpu_seconds"] = round(usage.ru_utime + usage.ru_stime, 2)
    return counts


def finish(selector, open_attempts, attempt, counts):
    status = attempt.answer[9:12]
    key = {b"429": "answered_429", b"503": "answered_503", b"408": "answered_408"}.get(status)
    counts[key or ("answered_other" if attempt.answer else "closed_unanswered")] += 1
    selector.unregister(attempt.sock)
    del open_attempts[attempt.sock.fileno()]
    attempt.sock.close()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("port", type=int)
    parser.add_argument("seconds", type=float)
    parser.add_argument("--source", default="127.0.0.2")
    parser.add_argument("--rate", type=float, default=1000)
    parser.add_argument("--drip-s", type=float, default=5)
    parser.add_argument("--alternate", type=float, default=0)
    args = parser.parse_args()
    print(json.dumps(run(args.port, args.seconds, args.source, args.rate, args.drip_s, args.alternate)), flush=True)


if __name__ == "__main__":
    main()
