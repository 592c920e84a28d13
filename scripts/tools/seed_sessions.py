#!/usr/bin/env python3
"""Creates COUNT sessions, each with a few messages, as one visitor over /v1/ws,
so API tests and fuzzers reach real sessions. Prints the session ids.

usage: seed_sessions.py WS_URL VISITOR_TOKEN [COUNT]
"""
import asyncio
import json
import sys

import websockets


async def main(url, token, count):
    async with websockets.connect(url, subprotocols=["switchboard.v1"]) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        assert json.loads(await ws.recv())["type"] == "welcome"
        for n in range(count):
            await ws.send(json.dumps({"type": "session.create", "ref": f"c{n}", "title": f"Seed {n}"}))
            while True:
                frame = json.loads(await ws.recv())
                if frame.get("ref") == f"c{n}":
                    break
            if frame.get("type") != "session":
                raise SystemExit(f"session.create refused: {frame}")
            session = frame["session"]["id"]
            for m in range(3):
                await ws.send(json.dumps({"type": "send", "ref": f"m{n}-{m}", "session_id": session,
                                          "client_msg_id": f"seed-{n}-{m}", "body": f"message {m}"}))
                while True:
                    frame = json.loads(await ws.recv())
                    if frame.get("ref") == f"m{n}-{m}":
                        break
                if frame.get("type") != "ack":
                    raise SystemExit(f"send refused: {frame}")
            print(session)


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3))
