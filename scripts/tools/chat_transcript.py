#!/usr/bin/env python3
"""Plays a short conversation against a running gateway and prints every
frame in order, sent (>>) and received (<<), for docs/protocol.md.

usage: chat_transcript.py WS_URL VISITOR_TOKEN OPERATOR_TOKEN
"""
import asyncio
import json
import sys

import websockets


async def main(url, visitor_token, operator_token):
    lines = []

    async def send(who, ws, frame):
        text = json.dumps(frame, separators=(",", ":"))
        lines.append(f"{who} >> {text}")
        await ws.send(text)

    async def recv(who, ws):
        text = await asyncio.wait_for(ws.recv(), 10)
        lines.append(f"{who} << {text}")
        return json.loads(text)

    async def until(who, ws, kind):
        while True:
            frame = await recv(who, ws)
            if frame.get("type") == kind:
                return frame

    async with websockets.connect(url, subprotocols=["switchboard.v1"]) as visitor, \
            websockets.connect(url, subprotocols=["switchboard.v1"]) as operator:
        await send("visitor ", visitor, {"type": "hello", "token": visitor_token})
        await until("visitor ", visitor, "welcome")
        await send("operator", operator, {"type": "hello", "token": operator_token})
        await until("operator", operator, "welcome")
        await send("operator", operator, {"type": "inbox.subscribe", "ref": "o1"})
        await until("operator", operator, "inbox")
        await send("visitor ", visitor, {"type": "session.create", "ref": "v1", "title": "Order question"})
        session = (await until("visitor ", visitor, "session"))["session"]["id"]
        await until("operator", operator, "session.updated")
        await send("operator", operator, {"type": "join", "ref": "o2", "session_id": session, "since_seq": 0})
        await until("operator", operator, "joined")
        await send("visitor ", visitor, {"type": "send", "ref": "v2", "session_id": session,
                                         "client_msg_id": "5d6c0b1e", "body": "Hello, where is my order?"})
        await until("visitor ", visitor, "message")
        await until("operator", operator, "message")
        await send("operator", operator, {"type": "session.assign", "ref": "o3", "session_id": session})
        await until("operator", operator, "session.updated")
        await until("visitor ", visitor, "session.updated")
        await send("operator", operator, {"type": "typing", "session_id": session, "state": True})
        await until("visitor ", visitor, "typing")
        await send("operator", operator, {"type": "send", "ref": "o4", "session_id": session,
                                          "client_msg_id": "9a8b7c6d", "body": "It ships today."})
        await until("operator", operator, "message")
        await until("visitor ", visitor, "message")
        await send("visitor ", visitor, {"type": "read", "session_id": session, "seq": 2})
        await until("operator", operator, "read")
        await send("visitor ", visitor, {"type": "send", "ref": "v3", "session_id": session,
                                         "client_msg_id": "5d6c0b1e", "body": "Hello, where is my order?"})
        await until("visitor ", visitor, "ack")
        await send("visitor ", visitor, {"type": "session.close", "ref": "v4", "session_id": session})
        await until("visitor ", visitor, "session.updated")
        await until("operator", operator, "session.updated")
    print("\n".join(lines))


if __name__ == "__main__":
    asyncio.run(main(*sys.argv[1:4]))
