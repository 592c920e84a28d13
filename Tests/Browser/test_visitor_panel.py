"""The console's visitor panel in Chromium: the page the widget was opened on (self-reported) and what the
demo shop's token vouches for (verified), shown apart, and nothing of it in the widget."""
from selenium.webdriver.common.by import By

from conftest import screenshot
from pages import Console, Widget, wait_for


def panel_lists(console):
    """{heading: {term: value}} of the visitor panel."""
    return console.driver.execute_script(
        "const out = {}; let heading = null;"
        "for (const node of document.querySelectorAll('#context-body > *')) {"
        "  if (node.tagName === 'H3') { heading = node.textContent; out[heading] = {}; }"
        "  else if (node.tagName === 'DL') { const terms = node.querySelectorAll('dt');"
        "    for (const dt of terms) out[heading][dt.textContent] = dt.nextElementSibling.textContent; } }"
        "return out;")


def test_the_panel_shows_the_page_and_the_verified_contact_apart(gateway, browsers):
    widget = Widget(browsers(), f"{gateway.base}/widget/demo.html?utm=panel")
    widget.open()
    widget.wait_state("open")
    widget.send("Does the Ridge shell come in XL?")
    session_id = wait_for(widget.session_id, message="the widget's session")
    ken = Console(browsers(), gateway.base, name="Ken")
    wait_for(lambda: session_id in ken.inbox_ids(), 5, "the conversation in the inbox")
    ken.open_session(session_id)

    panel = wait_for(lambda: ken.find("[data-sb=context]"), message="the visitor panel")
    wait_for(panel.is_displayed, message="the visitor panel shown")
    lists = wait_for(lambda: (lambda shown: shown if len(shown) >= 2 else None)(panel_lists(ken)),
                     message="both lists in the panel")
    verified = lists["Verified by your site"]
    reported = lists["Reported by the visitor’s browser"]
    assert verified == {"Name": "Demo visitor", "plan": "Trail club"}, verified
    assert reported["Page"] == f"{gateway.base}/widget/demo.html?utm=panel"
    assert reported["Page title"] == "Northwind Outfitters: widget demo"
    assert reported["Time zone"] and reported["Language"] and "Chrome" in reported["Browser"]
    link = panel.find_element(By.CSS_SELECTOR, "dd a")
    assert link.get_attribute("target") == "_blank" and "noopener" in link.get_attribute("rel")
    wait_for(lambda: "No earlier conversations" in panel.text, message="the earlier conversations looked up")
    screenshot(ken.driver, "console-visitor-panel.png")
    assert "Trail club" not in widget.find("[data-sb=log]").text
