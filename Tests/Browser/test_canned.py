"""Canned replies in Chromium: an operator saves one in the console's manager, a colleague types /ref and
Enter, the reply is filled with the operator's name and sent as written, and the widget receives it."""
import re

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import screenshot
from pages import Console, bodies, start_conversation, wait_for


def test_slash_refund_expands_and_sends(gateway, browsers):
    ken, widget, session_id = start_conversation(gateway.base, browsers, "Ken", "My parcel arrived broken")
    ann = Console(browsers(), gateway.base, name="Ann")
    wait_for(lambda: session_id in ann.inbox_ids(), 5, "the conversation in Ann's inbox")
    ann.open_session(session_id)

    # Ken has none yet: "/" says so and offers the manager, where he saves one.
    composer = ken.find("[data-sb=composer]")
    composer.send_keys("/")
    listed = wait_for(lambda: ken.find("[data-sb=canned]"), message="the canned list")
    wait_for(lambda: "No canned replies saved yet" in listed.text, message="the empty list's hint")
    assert composer.get_attribute("aria-controls") == listed.get_attribute("id")
    listed.find_element(By.CSS_SELECTOR, ".canned-manage button").click()
    manager = wait_for(lambda: ken.find("[data-sb=canned-manager]"), message="the manager")
    wait_for(manager.is_displayed, message="the manager open")
    manager.find_element(By.NAME, "shortcut").send_keys("refund")
    manager.find_element(By.NAME, "body").send_keys("Hi {{visitor.name}}, {{operator.name}} here: your refund is on its way.")
    manager.find_element(By.CSS_SELECTOR, "button[type=submit]").click()
    wait_for(lambda: any("/refund" in entry.text for entry in ken.find_all("[data-sb=canned-entry]")),
             message="the saved reply in the manager")
    screenshot(ken.driver, "console-canned-manager.png")
    next(b for b in manager.find_elements(By.TAG_NAME, "button") if b.text == "Done").click()
    wait_for(lambda: not manager.is_displayed(), message="the manager closed")

    # Ann, in the same workspace, types /ref: the reply is offered, Enter takes it (and does not send yet).
    composer = ann.find("[data-sb=composer]")
    composer.send_keys("/ref")
    options = lambda: ann.find_all("[data-sb=canned] [data-sb=canned-item]")
    wait_for(lambda: [o.text.split(" ")[0] for o in options()] == ["/refund"], message="/refund offered to Ann")
    assert options()[0].get_attribute("aria-selected") == "true"
    assert composer.get_attribute("aria-activedescendant") == options()[0].get_attribute("id")
    screenshot(ann.driver, "console-canned.png")
    composer.send_keys(Keys.ENTER)
    wait_for(lambda: not ann.find("[data-sb=canned]").is_displayed(), message="the list closed")
    text = composer.get_attribute("value")
    assert re.fullmatch(r"Hi .+, Ann here: your refund is on its way\.", text), text
    assert "{{" not in text
    assert ann.messages() == [] or bodies(ann.messages()) == ["My parcel arrived broken"], "Enter took, not sent"

    composer.send_keys(Keys.ENTER)
    wait_for(lambda: bodies(widget.messages())[-1:] == [text], message="the reply in the widget")

    # Escape closes the list and leaves what was typed; an unknown shortcut offers nothing to take.
    composer.send_keys("/zzz")
    wait_for(lambda: "No canned reply starts with /zzz" in ann.find("[data-sb=canned]").text, message="no match")
    composer.send_keys(Keys.ESCAPE)
    assert not ann.find("[data-sb=canned]").is_displayed()
    assert composer.get_attribute("value") == "/zzz"
