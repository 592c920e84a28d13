"""Both pages ride out a gateway restart and a cut connection: they say that they reconnect, and
afterwards each shows every message exactly once, in order, and what was typed meanwhile is
stored once."""
from conftest import screenshot
from pages import Widget, bodies, start_conversation, stored_in_order, wait_for
from proxy import CuttableProxy
from wire import WireClient


def shown_once_in_order(page, expected):
    messages = page.messages()
    return bodies(messages) == expected and stored_in_order(messages)


def test_a_gateway_restart_loses_and_repeats_nothing(gateway, browsers):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Rita", "Before the restart")
    operator.reply("Rita, before the restart")
    wait_for(lambda: shown_once_in_order(widget, ["Before the restart", "Rita, before the restart"]),
             message="the reply in the widget")

    gateway.stop()
    widget.wait_state("reconnecting")
    operator.wait_state("reconnecting")
    assert widget.banner_visible() and operator.banner_visible(), "both pages say that they reconnect"
    widget.send("Typed while the gateway was down")
    wait_for(lambda: widget.messages()[-1][1] == "pending", message="the offline message shown as pending")
    screenshot(widget.driver, "widget-reconnecting.png")

    gateway.start()
    widget.wait_state("open", 40)
    operator.wait_state("open", 40)
    expected = ["Before the restart", "Rita, before the restart", "Typed while the gateway was down"]
    wait_for(lambda: shown_once_in_order(widget, expected), 20, "the widget after the restart")
    wait_for(lambda: shown_once_in_order(operator, expected), 20, "the console after the restart")
    assert not widget.banner_visible() and not operator.banner_visible()

    operator.reply("Rita, after the restart")
    expected.append("Rita, after the restart")
    wait_for(lambda: shown_once_in_order(widget, expected), message="a live reply after the restart")
    wait_for(lambda: shown_once_in_order(operator, expected), message="the console after its reply")
    assert gateway.stored_bodies(session_id) == expected


def test_a_cut_connection_resends_an_unacked_message_once(gateway, browsers):
    proxy = CuttableProxy(gateway.port)
    try:
        operator, widget, session_id = start_conversation(proxy.base, browsers, "Omar", "Hello through the proxy")

        # The gateway stores the next message, but its ack and echo never reach the browser...
        proxy.hold()
        widget.send("Sent as the line went down")
        wait_for(lambda: len(gateway.stored_bodies(session_id)) == 2, message="the message stored")
        assert widget.messages()[-1][1] == "pending"
        # ...then every connection is cut and new ones are refused for a while.
        proxy.down()
        widget.wait_state("reconnecting")
        operator.wait_state("reconnecting")
        assert widget.banner_visible() and operator.banner_visible()
        widget.send("Typed while offline")
        operator.reply("Omar, typed while offline")
        proxy.up()

        widget.wait_state("open", 40)
        operator.wait_state("open", 40)
        stored = lambda: gateway.stored_bodies(session_id)  # noqa: E731
        wait_for(lambda: len(stored()) == 4, 20, "both offline messages stored")
        expected = stored()
        assert expected[:2] == ["Hello through the proxy", "Sent as the line went down"]
        assert sorted(expected[2:]) == sorted(["Typed while offline", "Omar, typed while offline"])
        wait_for(lambda: shown_once_in_order(widget, expected), 20, "the widget after the cut")
        wait_for(lambda: shown_once_in_order(operator, expected), 20, "the console after the cut")
    finally:
        proxy.close()


def test_messages_written_before_the_first_connection_open_one_conversation(gateway, browsers):
    proxy = CuttableProxy(gateway.port)
    try:
        widget = Widget(browsers(), f"{proxy.base}/widget/demo.html")
        widget.open()
        widget.wait_state("open")
        proxy.down()
        widget.wait_state("reconnecting")
        widget.send("First, while offline")
        widget.send("Second, before the conversation exists")
        proxy.up()
        session_id = wait_for(widget.session_id, 30, "the conversation")
        expected = ["First, while offline", "Second, before the conversation exists"]
        wait_for(lambda: shown_once_in_order(widget, expected), 20, "both messages stored")
        visitor = widget.driver.execute_script("return localStorage.getItem('switchboard-demo:visitor')")
        assert gateway.value(f"SELECT count(*) FROM chat_sessions WHERE user_id = '{visitor}'") == "1"
        assert gateway.stored_bodies(session_id) == expected
    finally:
        proxy.close()


def test_a_returning_visitor_sees_a_conversation_longer_than_the_replay(gateway, browsers):
    """The join replays replay_limit messages; the SDK pages the rest over HTTP, and the widget shows them."""
    widget = Widget(browsers(), f"{gateway.base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")
    widget.send("Start")
    session_id = wait_for(widget.session_id, message="the conversation")
    operator = WireClient(gateway, gateway.token("operator", name="Pat")["token"])
    operator.join(session_id)
    widget.driver.get("about:blank")  # the visitor leaves the page
    count = gateway.replay_limit + 15
    for i in range(count):
        operator.send(session_id, f"Reply {i + 1}")
    operator.close()
    returning = Widget(widget.driver, f"{gateway.base}/widget/demo.html")
    returning.open()
    expected = ["Start"] + [f"Reply {i + 1}" for i in range(count)]
    wait_for(lambda: shown_once_in_order(returning, expected), 20, "the whole conversation")
