"""The SDK against the real gateway, in the browser: resume across reconnects (every message once,
in order, no gap, also past the replay limit), the outbox (sent offline or with its ack lost:
stored once, shown once), token refresh, and session versions."""
import os
import threading
import time

import pytest

from conftest import SECRET
from pages import wait_for
from proxy import CuttableProxy
from wire import WireClient, claims_of, mint

HARNESS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "sdk_harness.js")


class SDKPage:
    """A page with the SDK harness installed. Its policy lets it connect to its own origin only, so a
    client that goes through the proxy runs on a page loaded through the proxy."""

    def __init__(self, driver, base):
        self.driver = driver
        driver.get(f"{base}/")
        with open(HARNESS) as f:
            driver.execute_script(f.read())

    def run(self, body, *args):
        """Runs an async function body in the page (its arguments in `args`); returns its value."""
        result = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1]; const args = [...arguments].slice(0, -1);"
            f"(async () => {{ {body} }})().then(done, (e) => done({{ __error: `${{e?.code ?? ''}} ${{e?.stack ?? e}}` }}));",
            *args)
        if isinstance(result, dict) and "__error" in result:
            raise AssertionError(f"in the page: {result['__error']}")
        return result

    def events(self, name, kind):
        return [e for e in self.driver.execute_script("return sbt.events[arguments[0]]", name) if e["type"] == kind]

    def delivered(self, name, session_id):
        return [e["seq"] for e in self.events(name, "message") if e["sessionId"] == session_id]

    def state(self, name):
        return self.driver.execute_script("return sbt.clients[arguments[0]].state", name)


@pytest.fixture
def proxy(gateway):
    p = CuttableProxy(gateway.port)
    yield p
    p.close()


def visitor_with_session(page, gateway, url, name="visitor"):
    token = gateway.token("visitor", name="SDK visitor")["token"]
    page.run("await (await sbt.make(args[0], args[1], [args[2]])).connect();", name, url, token)
    return page.run("return (await sbt.clients[args[0]].createSession('SDK test')).id;", name), token


def operator(gateway, session_id):
    op = WireClient(gateway, gateway.token("operator", name="Wire operator")["token"])
    op.join(session_id)
    return op


def proxy_ws(proxy):
    return f"ws://127.0.0.1:{proxy.port}/v1/ws"


def test_resume_delivers_every_message_once_in_order_across_reconnects(gateway, browsers, proxy):
    page = SDKPage(browsers(), proxy.base)
    session_id, _ = visitor_with_session(page, gateway, proxy_ws(proxy))
    op = operator(gateway, session_id)
    total = 60

    def talk():
        for i in range(total):
            op.send(session_id, f"operator {i + 1}")

    sender = threading.Thread(target=talk)
    sender.start()
    for _ in range(3):  # three cuts while the operator talks
        time.sleep(0.5)
        proxy.cut()
    sender.join()
    op.close()
    wait_for(lambda: len(page.delivered("visitor", session_id)) >= total, 30, "every message delivered")
    time.sleep(0.3)  # anything extra (a duplicate) would arrive now
    assert page.delivered("visitor", session_id) == list(range(1, total + 1))
    states = [e["state"] for e in page.events("visitor", "state")]
    assert states.count("reconnecting") >= 3 and states[-1] == "open"


def test_a_replay_past_the_limit_is_paged_over_http(gateway, browsers, proxy):
    page = SDKPage(browsers(), proxy.base)
    session_id, _ = visitor_with_session(page, gateway, proxy_ws(proxy))
    proxy.down()
    wait_for(lambda: page.state("visitor") != "open", message="the visitor offline")
    op = operator(gateway, session_id)
    total = 2 * gateway.replay_limit + 5  # the join replays replay_limit; the rest comes over HTTP
    for i in range(total):
        op.send(session_id, f"while you were away {i + 1}")
    op.close()
    proxy.up()
    wait_for(lambda: len(page.delivered("visitor", session_id)) >= total, 30, "the whole gap")
    time.sleep(0.3)
    assert page.delivered("visitor", session_id) == list(range(1, total + 1))


def test_the_outbox_stores_and_shows_each_message_once(gateway, browsers, proxy):
    page = SDKPage(browsers(), proxy.base)
    session_id, _ = visitor_with_session(page, gateway, proxy_ws(proxy))
    # Stored by the gateway, but its ack never arrives: the connection is cut first.
    proxy.hold()
    page.run("sbt.send('visitor', args[0], 'ack lost');", session_id)
    wait_for(lambda: gateway.stored_bodies(session_id) == ["ack lost"], message="the first message stored")
    proxy.down()
    wait_for(lambda: page.state("visitor") != "open", message="the visitor offline")
    for body in ["offline 1", "offline 2", "offline 3"]:
        page.run("sbt.send('visitor', args[0], args[1]);", session_id, body)
    assert page.run("return sbt.clients.visitor.pending(args[0]).length;", session_id) == 4
    proxy.up()

    expected = ["ack lost", "offline 1", "offline 2", "offline 3"]
    outcomes = wait_for(lambda: (lambda o: all(x["done"] for x in o.values()) and o)(
        page.driver.execute_script("return sbt.sends")), 30, "every send settled")
    assert {body: outcome.get("seq") for body, outcome in outcomes.items()} == {
        body: seq for seq, body in enumerate(expected, start=1)}
    assert gateway.stored_bodies(session_id) == expected, "each stored once"
    time.sleep(0.3)
    assert page.delivered("visitor", session_id) == [1, 2, 3, 4], "each shown once"
    assert page.run("return sbt.clients.visitor.pending().length;") == 0


def test_the_token_provider_is_asked_again_when_a_token_is_refused_or_expiring(gateway, browsers, proxy):
    page = SDKPage(browsers(), proxy.base)
    good = gateway.token("visitor", name="Token visitor")["token"]
    claims = claims_of(good)
    forged = mint("not-the-gateway-secret-but-just-as-long!", claims)

    # Refused (close 4001): the provider is asked again, and the second token connects.
    page.run("await (await sbt.make('refused', args[0], [args[1], args[2]])).connect();", proxy_ws(proxy), forged, good)
    assert page.driver.execute_script("return sbt.providerCalls.refused") == 2
    assert page.state("refused") == "open"

    # A token that expires within 30 s is replaced before the next connection uses it; a fresh one is kept.
    expiring = mint(SECRET, {**claims, "exp": int(time.time()) + 20})
    page.run("await (await sbt.make('expiring', args[0], [args[1], args[2]])).connect();", proxy_ws(proxy), expiring, good)
    page.run("await (await sbt.make('fresh', args[0], [args[1]])).connect();", proxy_ws(proxy), good)
    proxy.cut()
    wait_for(lambda: page.driver.execute_script("return sbt.providerCalls.expiring") == 2, message="a new token")
    wait_for(lambda: page.state("expiring") == "open" and page.state("fresh") == "open", message="both back")
    assert page.driver.execute_script("return sbt.providerCalls.fresh") == 1


def test_session_versions_only_grow(gateway, browsers):
    page = SDKPage(browsers(), gateway.base)
    session_id, _ = visitor_with_session(page, gateway, gateway.ws)
    token = gateway.token("operator", name="Version operator", sub="op-versions")["token"]
    page.run("await (await sbt.make('operator', args[0], [args[1]])).connect();"
             "const op = sbt.clients.operator; await op.subscribeInbox(); await op.join(args[2]);"
             "await op.assign(args[2]); await op.send(args[2], 'assigned'); await op.closeSession(args[2]);",
             gateway.ws, token, session_id)
    for name in ("operator", "visitor"):
        wait_for(lambda: any(e["id"] == session_id and e["status"] == "closed" for e in page.events(name, "session")),
                 message=f"the close, seen by the {name}")
        versions = [e["version"] for e in page.events(name, "session") if e["id"] == session_id]
        assert versions == sorted(versions), f"the {name} saw an older version after a newer one: {versions}"


def test_a_message_sent_before_leaving_is_still_stored(gateway, browsers, proxy):
    page = SDKPage(browsers(), proxy.base)
    session_id, _ = visitor_with_session(page, gateway, proxy_ws(proxy))
    proxy.down()
    wait_for(lambda: page.state("visitor") != "open", message="the visitor offline")
    page.run("sbt.send('visitor', args[0], 'written, then left'); await sbt.clients.visitor.leave(args[0]);",
             session_id)
    proxy.up()
    outcome = wait_for(lambda: page.driver.execute_script("return sbt.sends['written, then left']")["done"] and
                       page.driver.execute_script("return sbt.sends['written, then left']"), 20, "the send settled")
    assert outcome.get("seq") == 1, outcome
    assert gateway.stored_bodies(session_id) == ["written, then left"]
    # Left once its outbox is empty: a new message of the session no longer reaches this client.
    wait_for(lambda: page.run("return !sbt.clients.visitor.sessions.has(args[0]);", session_id), message="the leave")
