"""The satisfaction survey in Chromium: once the operator closes the conversation, the widget asks "How did we
do?", the visitor picks four stars by keyboard and writes a comment, the survey thanks it once, and the console
shows the rating under the conversation's title."""
from selenium.webdriver.common.keys import Keys

from conftest import screenshot
from pages import start_conversation, wait_for


def test_the_visitor_rates_a_closed_conversation(gateway, browsers):
    ken, widget, session_id = start_conversation(gateway.base, browsers, "Ken", "Where is my parcel?")
    ken.reply("It left the warehouse this morning.")
    wait_for(lambda: len(widget.messages()) == 2, message="the reply in the widget")
    assert not widget.find_all("[data-sb=csat]"), "no survey while the conversation is open"

    ken.find("[data-sb=close]").click()
    survey = wait_for(lambda: widget.find("[data-sb=csat]"), message="the survey")
    choices = widget.find_all("[data-sb=csat-rating]")
    assert [c.get_attribute("data-value") for c in choices] == ["1", "2", "3", "4", "5"]
    send = survey.find_element("css selector", "button[type=submit]")
    assert not send.is_enabled(), "nothing to send before a choice"
    # By keyboard: the first star, then the arrow keys.
    choices[0].click()
    for index in range(3):  # each arrow moves the choice and the focus one star on
        choices[index].send_keys(Keys.ARROW_RIGHT)
    assert [c.get_attribute("aria-checked") for c in widget.find_all("[data-sb=csat-rating]")] == [
        "false", "false", "false", "true", "false"]
    survey.find_element("css selector", "textarea").send_keys("Quick and kind")
    screenshot(widget.driver, "widget-csat.png")
    send.click()
    wait_for(lambda: "Thank you for your rating!" in widget.find("[data-sb=csat]").text, message="the thanks")

    result = wait_for(lambda: (lambda node: node if node.is_displayed() else None)(ken.find("[data-sb=csat-result]")),
                      message="the rating in the console")
    assert "4/5" in result.text and "Quick and kind" in result.text
    assert gateway.value(f"SELECT csat->>'rating' FROM chat_sessions WHERE id = '{session_id}'") == "4"
