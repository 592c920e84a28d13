"""A visitor and an operator chat in two real browser windows."""
import datetime
import json
import time
import urllib.parse
import urllib.request

from selenium.webdriver.common.keys import Keys

from conftest import screenshot
from pages import Console, Widget, bodies, stored_in_order, wait_for


def test_a_visitor_and_an_operator_chat(gateway, browsers):
    operator = Console(browsers(), gateway.base, name="Ken")
    widget = Widget(browsers(), f"{gateway.base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")

    sent_at = time.time()
    widget.send("Hello, my order #1042 has not arrived")
    session_id = wait_for(widget.session_id, message="the widget's session")
    wait_for(lambda: session_id in operator.inbox_ids(), 5, "the new conversation in the inbox")
    # Within a second of the send (the ack and the announcement travel together).
    assert time.time() - sent_at < 1.0 + 0.5, "the inbox took too long to show the conversation"
    wait_for(lambda: stored_in_order(widget.messages()), message="the visitor's message stored")

    operator.open_session(session_id)
    operator.find("[data-sb=assign]").click()
    wait_for(lambda: "assigned to Ken" in operator.find("#conv-meta").text, message="the assignment")

    # Typing, both ways.
    widget.find("[data-sb=composer]").send_keys("I ordered")
    wait_for(operator.typing_visible, message="the visitor typing, in the console")
    operator.find("[data-sb=composer]").send_keys("Let me")
    wait_for(widget.typing_visible, message="the operator typing, in the widget")
    operator.find("[data-sb=composer]").clear()
    widget.find("[data-sb=composer]").clear()

    operator.reply("Hi, Ken here. It left our warehouse this morning.")
    wait_for(lambda: len(widget.messages()) == 2 and stored_in_order(widget.messages()), message="the reply")
    seq, state, sender, body = widget.messages()[1]
    assert sender == "Ken" and body == "Hi, Ken here. It left our warehouse this morning."

    # Read ticks: the operator has the conversation open, so the visitor's message shows as read...
    wait_for(lambda: widget.find("[data-sb=message].read"), message="the read tick in the widget")
    # ...and the visitor has the panel open, so the reply shows as seen in the console.
    wait_for(lambda: "Seen" in operator.find_all("[data-sb=message]")[-1].text, message="the seen marker")

    assert bodies(operator.messages()) == bodies(widget.messages())
    screenshot(widget.driver, "widget-desktop.png")
    screenshot(operator.driver, "console-desktop.png")

    # The inbox's filters follow the session's state, live.
    def listed_under(tab):
        operator.find(f"[data-filter={tab}]").click()
        wait_for(lambda: operator.driver.execute_script(
            "const c = window.switchboardConsole; return !c.loading && c.cursor !== undefined"),
            message=f"the {tab} tab loaded")
        return session_id in operator.inbox_ids()

    assert listed_under("assigned") and not listed_under("open") and not listed_under("closed")
    operator.find("#mine").click()
    assert listed_under("active"), "assigned to me"
    operator.find("#mine").click()
    operator.find("[data-sb=close]").click()
    wait_for(lambda: operator.find("#conv-status").get_attribute("data-status") == "closed", message="the close")
    wait_for(lambda: listed_under("closed"), message="the session under closed")
    assert not listed_under("active")
    wait_for(lambda: "closed" in widget.find("[data-sb=log]").text, message="the widget told of the close")

    # The filters are a tab list by keyboard too: one tab stop, arrows and End move the selection.
    operator.find("[data-filter=active]").click()
    operator.driver.switch_to.active_element.send_keys(Keys.ARROW_RIGHT)
    selected = lambda: operator.find("[role=tab][aria-selected=true]").get_attribute("data-filter")  # noqa: E731
    assert selected() == "open" and operator.driver.switch_to.active_element.get_attribute("data-filter") == "open"
    operator.driver.switch_to.active_element.send_keys(Keys.END)
    assert selected() == "all"
    assert [t.get_attribute("tabindex") for t in operator.find_all("[role=tab]")] == ["-1", "-1", "-1", "-1", "0"]

    # The analytics view shows the endpoint's figures.
    now = datetime.datetime.now(datetime.timezone.utc)
    span = urllib.parse.urlencode({"from": (now - datetime.timedelta(days=7)).isoformat(timespec="milliseconds"),
                                   "to": now.isoformat(timespec="milliseconds")}).replace("%2B00%3A00", "Z")
    request = urllib.request.Request(
        f"{gateway.base}/api/v1/admin/live-chat/analytics?{span}",
        headers={"Authorization": f"Bearer {gateway.token('operator', name='Analyst')['token']}"})
    with urllib.request.urlopen(request, timeout=10) as response:
        expected = json.load(response)
    operator.find("#analytics-open").click()
    cards = wait_for(lambda: operator.find_all("[data-sb=analytics] .figure strong"), message="the figures")
    assert cards[0].text == str(expected["sessions_opened"]) and cards[1].text == str(expected["sessions_closed"])
    assert cards[6].text == str(expected["unanswered"]), "routing's figures: waits, and conversations left unanswered"
    bars = operator.find_all("[data-sb=analytics] svg rect")
    assert len(bars) == len(expected["messages_by_role"]) > 0
    screenshot(operator.driver, "console-analytics.png")


def test_the_widget_at_a_phones_width_works_by_keyboard(gateway, browsers):
    driver = browsers(390, 780)
    widget = Widget(driver, f"{gateway.base}/widget/demo.html")
    launcher = widget.find("[data-sb=launcher]")
    assert launcher.get_attribute("aria-label").startswith("Open chat")
    driver.execute_script("arguments[0].focus()", launcher)
    driver.switch_to.active_element.send_keys(Keys.ENTER)
    wait_for(lambda: widget.find("[data-sb=composer]").is_displayed(), message="the panel, by keyboard")
    panel = widget.find("[role=dialog]")
    assert panel.size["width"] == 390, "full width on a phone"
    send = widget.find("[data-sb=send]")
    assert driver.execute_script(
        "const r = arguments[0].getBoundingClientRect();"
        "return arguments[0].getRootNode().elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === arguments[0]",
        send), "nothing covers the send button"
    # New messages are said by one polite live region; the list of messages itself is not live.
    assert widget.find("[data-sb=live]").get_attribute("aria-live") == "polite"
    assert widget.find("[data-sb=log]").get_attribute("aria-live") is None
    assert len(widget.find_all("[role=log], [aria-live=assertive]")) == 0
    driver.switch_to.active_element.send_keys("Typed without a mouse", Keys.ENTER)
    wait_for(lambda: stored_in_order(widget.messages()) and len(widget.messages()) == 1, message="the message")
    screenshot(driver, "widget-phone.png")
    driver.switch_to.active_element.send_keys(Keys.ESCAPE)
    wait_for(lambda: not widget.find("[data-sb=composer]").is_displayed(), message="Escape closes the panel")
    assert launcher.get_attribute("aria-expanded") == "false"
