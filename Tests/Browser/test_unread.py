"""Unread counts in Chromium: the inbox's badge and the tab's title count a visitor's new messages up, clear
when the operator reads them, and a second browser of the same operator starts from the gateway's stored read
position, not from zero."""
import re
import time

from pages import Console, Widget, wait_for


def badge(console, session_id):
    return console.driver.execute_script(
        "const row = document.querySelector(`[data-sb=inbox-item][data-session-id='${arguments[0]}']`);"
        "return row ? (row.querySelector('[data-sb=unread]')?.textContent ?? '') : null;", session_id)


def title_count(console):
    """The unread total the tab's title shows (0: none). Other tests' conversations share the gateway."""
    title = console.driver.title
    match = re.fullmatch(r"\((\d+)\) Switchboard console", title)
    assert match or title == "Switchboard console", title
    return int(match.group(1)) if match else 0


def test_badge_and_title_count_up_and_clear_on_reading(gateway, browsers):
    ken = Console(browsers(), gateway.base, name="Ken")
    time.sleep(1.0)  # the first inbox page loaded and counted
    before = title_count(ken)
    widget = Widget(browsers(), f"{gateway.base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")
    widget.send("Hello?")
    session_id = wait_for(widget.session_id, message="the widget's session")
    wait_for(lambda: badge(ken, session_id) == "1", message="one unread")
    wait_for(lambda: title_count(ken) == before + 1, message="the title counting one more")
    widget.send("Anyone there?")
    wait_for(lambda: badge(ken, session_id) == "2", message="two unread")
    wait_for(lambda: title_count(ken) == before + 2, message="the title counting two more")

    ken.open_session(session_id)
    wait_for(lambda: len(ken.messages()) == 2, message="the conversation shown")
    wait_for(lambda: badge(ken, session_id) == "", message="the badge cleared")
    wait_for(lambda: title_count(ken) == before, message="the title back to what it counted before")

    # Another browser of Ken's: the gateway's read position, not this browser's memory, says it is read.
    again = Console(browsers(), gateway.base, name="Ken")
    wait_for(lambda: badge(again, session_id) is not None, message="the conversation in the second console")
    assert badge(again, session_id) == ""
    wait_for(lambda: title_count(again) == before, message="the second console's title without them")
    widget.send("Hello again")
    wait_for(lambda: badge(again, session_id) == "1", message="one unread in the second console")
