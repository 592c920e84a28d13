"""What people type is shown as text and runs nothing; the widget and its host page cannot restyle
each other."""
from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By

from conftest import screenshot
from pages import Widget, bodies, start_conversation, stored_in_order, wait_for

XSS = "<img src=x onerror=alert(1)>"
XSS_FLAG = "<img src=x onerror=window.__xss=1>"
XSS_NAME = "<img src=x onerror=window.__xss=2>"


def assert_nothing_ran(driver):
    try:
        text = driver.switch_to.alert.text
        raise AssertionError(f"an alert opened: {text!r}")
    except NoAlertPresentException:
        pass
    assert driver.execute_script("return window.__xss") is None, "an injected handler ran"


def test_bodies_and_names_are_shown_as_text(gateway, browsers):
    operator, widget, session_id = start_conversation(gateway.base, browsers, XSS_NAME, XSS)
    widget.send(XSS_FLAG)
    operator.reply(XSS_FLAG)
    expected = [XSS, XSS_FLAG, XSS_FLAG]
    wait_for(lambda: bodies(widget.messages()) == expected and stored_in_order(widget.messages()),
             message="the three messages in the widget")
    wait_for(lambda: bodies(operator.messages()) == expected and stored_in_order(operator.messages()),
             message="the three messages in the console")

    assert widget.messages()[2][2] == XSS_NAME, "the operator's name, literally"
    row = operator.find(f"[data-sb=inbox-item][data-session-id='{session_id}']")
    assert XSS in row.text, "the inbox shows the title (the first words) literally"
    assert XSS_NAME in operator.find("#me").text
    assert not widget.find_all("[data-sb=message] img"), "no element was made from a body"
    assert not operator.find_all("[data-sb=message] img, [data-sb=inbox] img, #me img")
    for driver in (widget.driver, operator.driver):
        assert_nothing_ran(driver)


STYLE_PROBES = {
    "launcher": "[data-sb=launcher]",
    "panel": "[role=dialog]",
    "header": "header",
    "composer": "[data-sb=composer]",
    "send": "[data-sb=send]",
    "body": "[data-sb=message] [data-sb=body]",
}
STYLE_PROPERTIES = ["width", "height", "display", "position", "right", "bottom", "background-color", "color",
                    "font-family", "font-size", "line-height", "letter-spacing", "padding-top", "padding-left",
                    "margin-top", "border-top-width", "border-top-style", "border-radius", "opacity", "filter",
                    "transform", "box-sizing"]
WIDGET_STYLES = """
const root = document.querySelector('switchboard-widget').shadowRoot;
const styles = {};
for (const [name, selector] of Object.entries(arguments[0])) {
  const node = root.querySelector(selector);
  const box = node.getBoundingClientRect();
  const computed = getComputedStyle(node);
  styles[name] = Object.fromEntries(arguments[1].map((p) => [p, computed.getPropertyValue(p)]));
  styles[name].box = [Math.round(box.x), Math.round(box.y), Math.round(box.width), Math.round(box.height)];
}
return styles;
"""
HOST_STYLES = """
return Object.fromEntries(['#probe', '#probe-button'].map((s) => {
  const computed = getComputedStyle(document.querySelector(s));
  return [s, Object.fromEntries(arguments[0].map((p) => [p, computed.getPropertyValue(p)]))];
}));
"""
HOSTILE_CSS = """
* { font-family: "Courier New", monospace !important; color: #f0f !important; letter-spacing: 3px !important;
    box-sizing: content-box !important; line-height: 3 !important; opacity: .9 !important; }
div, section, header, form, ol, li, p, span { border: 4px dashed red !important; padding: 30px !important;
    margin: 20px !important; background: yellow !important; display: block !important; }
button { background: lime !important; width: 400px !important; height: 10px !important;
    border-radius: 0 !important; position: static !important; }
textarea { font-size: 40px !important; }
switchboard-widget { display: block !important; position: absolute !important; filter: blur(3px) !important;
    transform: scale(.5) !important; }
"""


def host_page(gateway, token, css="", widget=True):
    script = ""
    if widget:
        script = (f'<script>window.SwitchboardWidget = {{ getToken: async () => "{token}" }};</script>\n'
                  f'<script src="{gateway.base}/widget/widget.js" defer data-gateway="{gateway.ws}" '
                  'data-title="Acme help"></script>')
    return f"""<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Host</title>
<style>{css}</style>{script}</head>
<body><h1>A host page</h1><p id="probe">Its own paragraph.</p><button id="probe-button">Its own button</button></body></html>"""


def open_with_message(driver, url):
    widget = Widget(driver, url)
    widget.open()
    widget.wait_state("open")
    widget.send("Does it look right?")
    wait_for(lambda: stored_in_order(widget.messages()) and len(widget.messages()) == 1, message="the message")
    return widget


def test_the_widget_and_a_hostile_host_page_cannot_restyle_each_other(gateway, browsers, host_pages):
    token = gateway.token("visitor", name="Host page visitor")["token"]
    plain_url = host_pages.add("plain.html", host_page(gateway, token))
    hostile_url = host_pages.add("hostile.html", host_page(gateway, token, HOSTILE_CSS))

    plain = open_with_message(browsers(), plain_url)
    hostile = open_with_message(browsers(), hostile_url)
    designed = plain.driver.execute_script(WIDGET_STYLES, STYLE_PROBES, STYLE_PROPERTIES)
    restyled = hostile.driver.execute_script(WIDGET_STYLES, STYLE_PROBES, STYLE_PROPERTIES)
    for name in STYLE_PROBES:
        assert restyled[name] == designed[name], f"the host page's CSS reached the widget's {name}"
    screenshot(hostile.driver, "widget-hostile-host.png")

    # The other way round: the widget's styles leave the host page's own elements alone.
    bare = browsers()
    bare.get(host_pages.add("bare.html", host_page(gateway, token, widget=False)))
    wait_for(lambda: bare.find_element(By.ID, "probe"), message="the bare page")
    assert plain.driver.execute_script(HOST_STYLES, STYLE_PROPERTIES) == bare.execute_script(HOST_STYLES,
                                                                                             STYLE_PROPERTIES)
