"""Three gateway nodes on one PostgreSQL, for each bus: docs/protocol.md "Clusters" holds across nodes."""
import json
import threading
import time
import urllib.request

import pytest

from conftest import restart_postgres
from participant import Participant, assert_in_order_once

TOTAL = 1000


def conversation(cluster):
    """A visitor on node 1, operators on nodes 2 and 3, all joined to one session."""
    n1, n2, n3 = cluster.nodes
    visitor = Participant(n1, "visitor", "v-1")
    session = visitor.create_session()
    operators = [Participant(n2, "operator", "op-2"), Participant(n3, "operator", "op-3")]
    for operator in operators:
        operator.join(session)
    return session, visitor, operators


def send_all(senders, session, total, pause_every=50, pause=0.005, on_progress=None):
    """`total` messages, taken in turn by the senders; returns {client_msg_id: sender}."""
    sent = {}
    for i in range(total):
        sender = senders[i % len(senders)]
        sent[sender.send(session, f"m{i}")] = sender
        if i % pause_every == pause_every - 1:
            time.sleep(pause)
            if on_progress:
                on_progress(i + 1)
    return sent


def resend_unacked(sent, session, timeout=60):
    """Like the SDK's outbox: re-send what was not acknowledged, same client_msg_id, until all are."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        missing = [(cid, p) for cid, p in sent.items() if cid not in p.acks]
        if not missing:
            return
        time.sleep(1.0)
        for cid, p in missing:
            if cid not in p.acks and p.closed is None:
                p.send(session, "again", client_msg_id=cid)
    missing = [cid for cid, p in sent.items() if cid not in p.acks]
    assert not missing, f"{len(missing)} messages never acknowledged"


def test_every_participant_receives_every_message_in_order_once(cluster):
    session, visitor, operators = conversation(cluster)
    everyone = [visitor] + operators
    send_all(everyone, session, TOTAL)
    for p in everyone:
        p.wait_for(lambda p=p: len(p.received(session)) >= TOTAL, what=f"{TOTAL} messages")
    time.sleep(0.3)  # anything extra (a duplicate) would arrive now
    for p in everyone:
        assert_in_order_once(p.received(session), TOTAL, f"{p.sub}@{p.node.name}")
    assert cluster.value(f"SELECT count(*) FROM chats WHERE session_id = '{session}'") == str(TOTAL)
    # The bus carried them (the database sweeps alone would also deliver, seconds later).
    for node in cluster.nodes:
        received = metric(node, 'switchboard_bus_notifications_total{direction="in"}')
        assert received >= 10, f"{node.name} heard {received} notifications"


def metric(node, series):
    for line in node.get("/metrics").splitlines():
        if line.startswith(series + " "):
            return float(line.split()[-1])
    raise AssertionError(f"{node.name}: no {series} in /metrics")


def test_a_node_left_alone_publishes_nothing_until_another_is_back(cluster):
    """Nobody to tell, nothing sent (the postgres bus counts the listeners every second, the nats bus
    hears heartbeats); a node that comes back is told again, and its clients miss nothing."""
    n1, n2, n3 = cluster.nodes
    session, visitor, (op2, _) = conversation(cluster)

    def published():
        return metric(n1, 'switchboard_bus_notifications_total{direction="out"}')

    def round_of(count):
        """`count` messages from the visitor, delivered back to it; what n1 published meanwhile."""
        before, total = published(), len(visitor.received(session)) + count
        send_all([visitor], session, count)
        visitor.wait_for(lambda: len(visitor.received(session)) >= total, what=f"{total} messages")
        time.sleep(0.3)
        return published() - before

    assert round_of(20) > 0, "with other nodes listening, n1 publishes"
    n2.kill()
    n3.kill()
    op2.wait_for(lambda: op2.closed is not None, what="its node to go away")
    deadline = time.time() + 15
    while round_of(20) > 0:
        assert time.time() < deadline, "n1 kept publishing with no other node there"
    assert round_of(20) == 0, "alone, n1 publishes nothing"

    n2.start()
    n2.wait_bus()
    had = op2.received(session)
    op2.connect(n2)
    op2.join(session, since=had[-1])
    deadline = time.time() + 15
    while round_of(20) == 0:
        assert time.time() < deadline, "n1 did not publish again once n2 was back"
    stored = int(cluster.value(f"SELECT count(*) FROM chats WHERE session_id = '{session}'"))
    op2.wait_for(lambda: len(op2.received(session)) >= stored, what=f"{stored} messages")
    assert_in_order_once(op2.received(session), stored, f"{op2.sub}@{n2.name}")


def test_a_killed_node_loses_nothing_and_its_operator_resumes_on_another(cluster):
    n1, n2, n3 = cluster.nodes
    session, visitor, (op2, op3) = conversation(cluster)

    def kill_at(count):
        if count == 400:
            n2.kill()

    sent = send_all([visitor, op3], session, TOTAL, on_progress=kill_at)
    # op2 lost its node: it comes back on node 3 from what it had.
    op2.wait_for(lambda: op2.closed is not None, what="its node to go away")
    had = op2.received(session)
    op2.connect(n3)
    op2.join(session, since=had[-1] if had else 0)
    resend_unacked(sent, session)
    for p in (visitor, op2, op3):
        p.wait_for(lambda p=p: len(set(p.received(session))) >= TOTAL, what=f"{TOTAL} messages")
    time.sleep(0.3)
    for p in (visitor, op2, op3):
        assert_in_order_once(p.received(session), TOTAL, f"{p.sub}@{p.node.name}")
    stored = int(cluster.value(f"SELECT count(*) FROM chats WHERE session_id = '{session}'"))
    assert stored == TOTAL


def test_postgres_restart_loses_no_acked_message_and_delivery_resumes(cluster):
    session, visitor, operators = conversation(cluster)
    everyone = [visitor] + operators
    acked_before = {}

    def restart_at(count):
        if count == 500:
            acked_before.update({cid: seq for p in everyone for cid, seq in p.acks.items()})
            restart_postgres()

    sent = send_all(everyone, session, TOTAL, on_progress=restart_at)
    resend_unacked(sent, session, timeout=90)
    # Everything acknowledged is stored, with the seq its ack named.
    rows = cluster.value(f"SELECT string_agg(client_msg_id || '=' || seq, ',') FROM chats WHERE session_id = '{session}'")
    stored = dict(pair.split("=") for pair in rows.split(","))
    for p in everyone:
        for cid, seq in p.acks.items():
            assert stored.get(cid) == str(seq), f"ack {cid}={seq} not stored as acked"
    assert len(stored) == TOTAL
    for p in everyone:
        p.wait_for(lambda p=p: len(set(p.received(session))) >= TOTAL, timeout=60, what=f"{TOTAL} messages")
    time.sleep(0.3)
    for p in everyone:
        assert_in_order_once(p.received(session), TOTAL, f"{p.sub}@{p.node.name}")
    for node in cluster.nodes:
        node.wait_bus()


def test_typing_session_updates_and_http_changes_cross_nodes(cluster):
    n1, n2, n3 = cluster.nodes
    session, visitor, (op2, op3) = conversation(cluster)
    console = Participant(n3, "operator", "op-console")
    console.request({"type": "inbox.subscribe"})

    visitor.send_frame({"type": "typing", "session_id": session, "state": True})
    for p in (op2, op3):
        p.wait_for(lambda p=p: any(e.get("type") == "typing" and e["sender"]["id"] == "v-1" for e in p.events),
                   timeout=10, what="the visitor's typing")

    op2.request({"type": "session.assign", "session_id": session})
    for p in (visitor, console):
        p.wait_for(lambda p=p: any(e.get("type") == "session.updated" and e["session"]["status"] == "assigned"
                                   for e in p.events), timeout=10, what="session.updated (assigned)")
    # The assignment's system line is a stored message: every node delivers it, in the session's sequence.
    for p in (visitor, op3):
        p.wait_for(lambda p=p: any(e.get("type") == "message" and e.get("kind") == "event"
                                   and (e.get("meta") or {}).get("action") == "assigned" for e in p.events),
                   timeout=10, what="the assignment's event")

    visitor.send(session, "hello from node 1")
    console.wait_for(lambda: any(e.get("type") == "session.updated" and (e["session"].get("last_message") or {}).get("body") == "hello from node 1"
                                 for e in console.events), timeout=10, what="the inbox's new last message")

    # An HTTP change on node 1 reaches the console on node 3.
    admin = n1.token("admin", "admin-1")
    request = urllib.request.Request(f"{n1.base}/api/v1/sessions/{session}", method="PATCH",
                                     data=json.dumps({"title": "Renamed on node 1"}).encode(),
                                     headers={"Authorization": f"Bearer {admin}", "Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=10).read()
    console.wait_for(lambda: any(e.get("type") == "session.updated" and e["session"].get("title") == "Renamed on node 1"
                                 for e in console.events), timeout=10, what="the PATCH on node 1")


def test_readyz_and_metrics_name_the_node_and_the_bus(cluster):
    for node in cluster.nodes:
        ready = node.get("/readyz")
        assert ready["node_id"] == node.name and ready["bus"] == node.bus and ready["bus_state"] == "connected"
        metrics = node.get("/metrics")
        assert f'switchboard_node_info{{node_id="{node.name}",bus="{node.bus}"}} 1' in metrics, metrics[:2000]
        assert "switchboard_bus_notifications_total" in metrics


def test_nats_server_killed_and_restarted_deliveries_go_on_from_the_database(cluster):
    if cluster.nats is None:
        pytest.skip("the NATS bus only")
    session, visitor, operators = conversation(cluster)
    everyone = [visitor] + operators
    send_all(everyone, session, 300)
    for p in everyone:
        p.wait_for(lambda p=p: len(p.received(session)) >= 300, what="300 messages")
    cluster.nats.kill()
    for node in cluster.nodes:
        node.wait_bus("disconnected")
    # With the bus away, each node reads its sessions from the database.
    send_all(everyone, session, 300)
    for p in everyone:
        p.wait_for(lambda p=p: len(p.received(session)) >= 600, what="600 messages with NATS down")
    cluster.nats.start()
    for node in cluster.nodes:
        node.wait_bus("connected", seconds=30)
    send_all(everyone, session, TOTAL - 600)
    for p in everyone:
        p.wait_for(lambda p=p: len(p.received(session)) >= TOTAL, what=f"{TOTAL} messages")
    time.sleep(0.3)
    for p in everyone:
        assert_in_order_once(p.received(session), TOTAL, f"{p.sub}@{p.node.name}")
    metrics = cluster.nodes[1].get("/metrics")
    assert "switchboard_bus_reconnects_total 1" in metrics, [l for l in metrics.splitlines() if "bus_" in l]
