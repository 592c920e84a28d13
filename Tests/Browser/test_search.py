"""Search in Chromium: an operator types an order number into the console's search box, the old closed
conversation that mentions it is found with the number marked, and the result opens that conversation
scrolled to the message, well above its end. A visitor's words containing markup show as text."""
import uuid

import pytest
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import screenshot
from pages import Console, wait_for
from test_first_day import axe_results, serious
from wire import WireClient

LATER = 45  # messages after the one searched for: it is far above the conversation's end


@pytest.mark.parametrize("width", [1280, 390], ids=["desk", "phone"])
def test_a_search_finds_an_old_conversation_and_opens_it_at_the_message(gateway, browsers, width):
    phone = width < 600
    suffix = "-phone" if phone else ""
    workspace = str(uuid.uuid4())
    order = str(uuid.uuid4().int % 90000 + 10000)
    visitor = WireClient(gateway, gateway.token("visitor", name="Vera", workspace_id=workspace)["token"])
    old = visitor.create_session("Broken parcel")
    visitor.send(old, "Hello, I have a question about a delivery")
    found_seq = visitor.send(old, f"The box for order #{order} arrived crushed <b>again</b>")["seq"]
    for i in range(LATER):
        visitor.send(old, f"Another detail, number {i + 1}")
    visitor.request({"type": "session.close", "session_id": old})
    newer = visitor.create_session("Opening hours")
    visitor.send(newer, "When do you open tomorrow?")
    visitor.close()

    token = gateway.token("operator", name="Ken", workspace_id=workspace)["token"]
    console = Console(browsers(width, 844 if phone else 800), gateway.base, token=token)
    wait_for(lambda: console.inbox_ids() == [newer], message="only the open conversation in the Active list")

    box = console.find("[data-sb=search]")
    box.send_keys(f"#{order}")
    results = lambda: console.find_all("[data-sb=search-result]")
    wait_for(lambda: len(results()) == 1, message="one result for the order number")
    result = results()[0]
    assert not console.find("[data-sb=inbox]").is_displayed(), "the results stand in for the inbox"
    assert "Broken parcel" in result.text and "Vera" in result.text
    marked = [mark.text for mark in result.find_elements(By.TAG_NAME, "mark")]
    assert marked == [order], marked
    snippet = result.find_element(By.CSS_SELECTOR, ".snippet").text
    assert snippet == f"The box for order #{order} arrived crushed <b>again</b>", snippet
    assert result.find_elements(By.TAG_NAME, "b") == [], "a visitor's markup stays text"
    assert console.find("[data-sb=search-status]").text == f"1 message found for “#{order}”"
    screenshot(console.driver, f"console-search{suffix}.png")
    assert not serious(axe_results(console.driver)), "the results pass axe-core (critical and serious rules)"

    # The keyboard reaches it (Arrow Down from the box) and Enter opens it.
    box.send_keys(Keys.ARROW_DOWN)
    assert console.driver.switch_to.active_element == result
    result.send_keys(Keys.ENTER)
    wait_for(lambda: console.find("[data-sb=conversation]").is_displayed(), message="the conversation")
    target = wait_for(lambda: console.find(f"[data-sb=conversation] [data-seq='{found_seq}'].found"),
                      message="the message found, marked")
    wait_for(lambda: len(console.messages()) == LATER + 2, message="the rest of the conversation after it")
    assert f"#{order}" in target.text
    # Headed as it is stored, though it is in no list the console has loaded: closed, nothing to close.
    wait_for(lambda: console.find("#conv-title").text == "Broken parcel", message="the conversation's title")
    assert console.find("#conv-status").get_attribute("data-status") == "closed"
    assert not console.find("[data-sb=close]").is_enabled() and console.find("[data-sb=reopen]").is_displayed()
    # Scrolled to it, not to the end: the message is inside the log's view and the last one is below it.
    placement = console.driver.execute_script("""
        const log = document.querySelector('#log'), item = arguments[0];
        const view = log.getBoundingClientRect(), box = item.getBoundingClientRect();
        const last = log.lastElementChild.getBoundingClientRect();
        return {inside: box.top >= view.top && box.bottom <= view.bottom, lastBelow: last.top > view.bottom,
                focused: document.activeElement === item};""", target)
    assert placement == {"inside": True, "lastBelow": True, "focused": True}, placement
    assert console.driver.current_url.endswith(f"#/s/{old}/{found_seq}")
    screenshot(console.driver, f"console-search-opened{suffix}.png")
    if phone:  # the list and the conversation are two screens: back to the results
        console.find("[data-sb=back]").click()
        wait_for(lambda: box.is_displayed(), message="the search box again")

    # A word of no message: said so. Escape clears the box and brings the conversations back.
    box.clear()
    box.send_keys("zzzqqq")
    wait_for(lambda: console.find("[data-sb=search-status]").text == "No messages found for “zzzqqq”.",
             message="nothing found, said so")
    box.send_keys(Keys.ESCAPE)
    wait_for(lambda: console.inbox_ids() == [newer], message="the inbox back")
    assert box.get_attribute("value") == ""
