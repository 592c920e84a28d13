"""Attachments (issue 33) in the widget and the console, against the real gateway: a visitor's picture chosen,
pasted or dropped reaches the console as a thumbnail that opens the full size; an operator's PDF reaches the
widget as a download; a page disguised as a picture, or a file too large, is refused with a visible message;
at a phone's width everything fits and the paperclip is a button the keyboard reaches."""
import base64
import time
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from conftest import screenshot
from files import PAGE, PDF, png
from pages import Widget, bodies, start_conversation, wait_for
from test_first_day import axe_results, serious

THUMBNAIL_BUDGET_S = 2.0


def saved(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def choose(view, path):
    """The file chooser, as a person's choice reaches the page: the hidden input's files (WebDriver may set a
    hidden file input's files; the paperclip only clicks it)."""
    view.find("input[type=file]").send_keys(path)


def hand_over(view, target, kind, name, data, content_type):
    """A paste (`paste`) or a drop (`dragover` then `drop`) of one file on `target`, as the browser makes it."""
    return view.driver.execute_script("""
        const [target, kind, name, encoded, type] = arguments;
        const bytes = Uint8Array.from(atob(encoded), (c) => c.charCodeAt(0));
        const data = new DataTransfer();
        data.items.add(new File([bytes], name, { type }));
        const init = { bubbles: true, cancelable: true, composed: true };
        if (kind === 'paste') {
          const event = new ClipboardEvent('paste', { ...init, clipboardData: data });
          target.dispatchEvent(event);
          return event.defaultPrevented;
        }
        const over = new DragEvent('dragover', { ...init, dataTransfer: data });
        target.dispatchEvent(over);
        const drop = new DragEvent('drop', { ...init, dataTransfer: data });
        target.dispatchEvent(drop);
        return over.defaultPrevented && drop.defaultPrevented;
    """, target, kind, name, base64.b64encode(data).decode(), content_type)


def tray_names(view):
    return [node.get_attribute("textContent") or node.find_element(By.CSS_SELECTOR, "img").get_attribute("alt")
            for node in view.find_all("[data-sb=attachments-tray] [data-sb=attachment]")]


def stored_files(view, prefix, content_type):
    """The attachments of stored messages shown, of one type."""
    return view.find_all(f"{prefix}[data-state=sent] [data-sb=attachment][data-content-type='{content_type}']")


def loaded(image):
    return image.get_property("complete") and image.get_property("naturalWidth") > 0


def shown_picture(view, prefix):
    links = stored_files(view, prefix, "image/png")
    if links:
        image = links[-1].find_element(By.TAG_NAME, "img")
        if loaded(image):
            return links[-1], image
    return None


def opens_full_size(driver, open_link, width):
    """`open_link()` opens a new tab showing the picture at its full size; the tab is closed again."""
    before = set(driver.window_handles)
    home = driver.current_window_handle
    open_link()
    tab = wait_for(lambda: (set(driver.window_handles) - before or {None}).pop(), message="a new tab")
    driver.switch_to.window(tab)
    try:
        wait_for(lambda: driver.execute_script(
            "return document.contentType === 'image/png' && document.images[0]?.naturalWidth"), message="the picture")
        assert driver.execute_script("return document.images[0].naturalWidth") == width
        assert "/thumbnail" not in driver.current_url
    finally:
        driver.close()
        driver.switch_to.window(home)


def test_a_visitors_picture_reaches_the_console_as_a_thumbnail_that_opens_full_size(gateway, browsers, tmp_path, figures):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Ada", "My parcel came damaged")
    choose(widget, saved(tmp_path, "damaged box.png", png()))
    wait_for(lambda: tray_names(widget) == ["damaged box.png"], message="the picture in the tray")
    assert widget.find_all("[data-sb=attachments-tray] [data-sb=upload-progress]"), "a progress bar"
    assert widget.find("[data-sb=composer]").get_attribute("placeholder").startswith("Add a caption")
    wait_for(lambda: all(not bar.is_displayed() for bar in widget.find_all("[data-sb=upload-progress]")),
             message="the upload done")
    started = time.monotonic()
    widget.send("This is how it arrived")
    link, image = wait_for(lambda: shown_picture(operator, operator.MESSAGES), THUMBNAIL_BUDGET_S + 3,
                           "the thumbnail in the console")
    elapsed = time.monotonic() - started
    figures["attachment_send_to_console_thumbnail_ms"] = round(elapsed * 1000)
    assert elapsed < THUMBNAIL_BUDGET_S, f"the thumbnail took {elapsed:.2f} s"
    assert "/thumbnail" in image.get_attribute("src")
    assert image.get_attribute("alt") == "damaged box.png"
    assert image.get_property("naturalWidth") <= 400, "the thumbnail, not the file"
    assert bodies(operator.messages())[-1] == "This is how it arrived"
    wait_for(lambda: bodies(widget.messages())[-1] == "This is how it arrived" and widget.states()[-1] == "sent",
             message="the widget's own message stored")
    assert stored_files(widget, widget.MESSAGES, "image/png"), "the visitor sees the picture sent"
    screenshot(operator.driver, "console-attachment.png")

    # The full size, by a click and by the keyboard.
    opens_full_size(operator.driver, link.click, 640)
    opens_full_size(operator.driver, lambda: (operator.driver.execute_script("arguments[0].focus()", link),
                                              operator.driver.switch_to.active_element.send_keys(Keys.ENTER)), 640)
    assert gateway.value(f"SELECT count(*) FROM attachments WHERE session_id = '{session_id}'") == "1"


def test_pictures_pasted_or_dropped_are_sent_like_chosen_ones(gateway, browsers):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Olga", "A screenshot of the error")
    composer = widget.find("[data-sb=composer]")
    assert hand_over(widget, composer, "paste", "image.png", png(300, 200), "image/png"), "the paste is the widget's"
    wait_for(lambda: tray_names(widget) == ["image.png"], message="the pasted picture in the tray")
    composer.send_keys(Keys.ENTER)  # no caption: the picture alone
    wait_for(lambda: shown_picture(operator, operator.MESSAGES), THUMBNAIL_BUDGET_S + 3, "the pasted picture")

    assert hand_over(widget, widget.find("[data-sb=log]"), "drop", "dropped.png", png(200, 300), "image/png")
    wait_for(lambda: tray_names(widget) == ["dropped.png"], message="the dropped picture in the tray")
    widget.send("and the dropped one")
    wait_for(lambda: len(stored_files(operator, operator.MESSAGES, "image/png")) == 2, THUMBNAIL_BUDGET_S + 3,
             "the dropped picture")
    wait_for(lambda: bodies(operator.messages())[-2:] == ["", "and the dropped one"], message="both, in order")

    assert not widget.find("[data-sb=attachments-tray]").is_displayed(), "the tray empties once sent"
    # The console takes pasted pictures too.
    console_composer = operator.find("[data-sb=composer]")
    assert hand_over(operator, console_composer, "paste", "from the console.png", png(120, 80), "image/png")
    wait_for(lambda: tray_names(operator) == ["from the console.png"], message="the console's tray")
    operator.reply("Pasted in the console")
    wait_for(lambda: len(stored_files(widget, widget.MESSAGES, "image/png")) == 3, THUMBNAIL_BUDGET_S + 3,
             "the console's picture in the widget")
    assert gateway.value(f"SELECT count(*) FROM attachments WHERE session_id = '{session_id}'") == "3"


def test_an_operators_pdf_reaches_the_widget_as_a_download(gateway, browsers, tmp_path):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Ken", "Can I have the invoice?")
    choose(widget, saved(tmp_path, "order.png", png(480, 320)))
    widget.send("and the order, for reference")
    wait_for(lambda: shown_picture(operator, operator.MESSAGES), THUMBNAIL_BUDGET_S + 3, "the visitor's picture")

    choose(operator, saved(tmp_path, "invoice 2026-11.pdf", PDF))
    wait_for(lambda: tray_names(operator) and "invoice 2026-11.pdf" in tray_names(operator)[0],
             message="the PDF in the console's tray")
    operator.reply("Here is your invoice")
    chips = wait_for(lambda: stored_files(widget, widget.MESSAGES, "application/pdf"), 5, "the PDF in the widget")
    chip = chips[0]
    assert chip.get_attribute("download") == "invoice 2026-11.pdf"
    assert "invoice 2026-11.pdf" in chip.text and "bytes" in chip.text, chip.text
    assert chip.find_elements(By.TAG_NAME, "img") == [], "a file, not a picture"
    assert "Download invoice 2026-11.pdf" in chip.get_attribute("aria-label")
    href = chip.get_attribute("href")
    assert href.startswith(gateway.base + "/api/v1/attachments/"), href
    with urllib.request.urlopen(href, timeout=10) as answer:
        assert answer.status == 200
        assert answer.headers["Content-Disposition"].startswith("attachment"), answer.headers["Content-Disposition"]
        assert answer.headers["X-Content-Type-Options"] == "nosniff"
        assert answer.read() == PDF
    wait_for(lambda: widget.find("[data-sb=live]").get_attribute("textContent")
             == "Ken: Here is your invoice, invoice 2026-11.pdf", message="the file's name said to screen readers")
    widget.driver.execute_script("arguments[0].scrollIntoView()", chip)
    screenshot(widget.driver, "widget-attachment.png")


def test_a_page_disguised_as_a_picture_or_a_file_too_large_is_refused_with_a_visible_message(gateway, browsers,
                                                                                              tmp_path):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Ines", "Here is a picture")
    choose(widget, saved(tmp_path, "holiday.png", PAGE))
    alert = widget.find("[data-sb=attach-error]")
    wait_for(lambda: alert.is_displayed() and "holiday.png cannot be sent" in alert.text, 10, "the refusal")
    assert alert.get_attribute("role") == "alert"
    assert tray_names(widget) == [], "the refused file left the tray"
    assert gateway.value(f"SELECT count(*) FROM attachments WHERE session_id = '{session_id}'") == "0"

    choose(widget, saved(tmp_path, "huge.png", png(16, 16) + b"\x00" * (10 * 1024 * 1024)))
    wait_for(lambda: "huge.png is too large to send" in alert.text, 20, "the refusal of a file too large")
    widget.send("Only text, then")
    wait_for(lambda: bodies(operator.messages()) == ["Here is a picture", "Only text, then"], message="text still goes")
    assert operator.find_all("[data-sb=conversation] [data-sb=attachment]") == []

    # The chooser offers what the gateway takes by default; anything else chosen is the gateway's to refuse.
    assert "image/png" in widget.find("input[type=file]").get_attribute("accept")
    choose(widget, saved(tmp_path, "archive.zip", b"PK\x03\x04"))
    wait_for(lambda: "archive.zip cannot be sent" in alert.text, message="a type the gateway does not take")


def test_attachments_at_a_phones_width_fit_and_work_by_keyboard(gateway, browsers, tmp_path):
    driver = browsers(390, 844)
    widget = Widget(driver, f"{gateway.base}/widget/demo.html")
    widget.open()
    widget.wait_state("open")
    composer = widget.find("[data-sb=composer]")
    composer.send_keys(Keys.SHIFT, Keys.TAB)
    attach = widget.find("[data-sb=attach]")
    assert driver.execute_script("return arguments[0].shadowRoot.activeElement", widget.host) == attach
    assert attach.tag_name == "button" and attach.get_attribute("aria-label") == "Attach a file"
    size = attach.size
    assert size["width"] >= 40 and size["height"] >= 40, f"a touch target: {size}"

    # A visitor's first message can be a file: it starts the conversation.
    choose(widget, saved(tmp_path, "a rather long name for a photo of the damaged parcel.png", png(1200, 800)))
    widget.send("From my phone")
    wait_for(lambda: stored_files(widget, widget.MESSAGES, "image/png"), 10, "the picture stored")
    image = stored_files(widget, widget.MESSAGES, "image/png")[0].find_element(By.TAG_NAME, "img")
    wait_for(lambda: loaded(image), message="the thumbnail shown")
    overflow = driver.execute_script("""
        const root = document.querySelector('switchboard-widget').shadowRoot;
        const log = root.querySelector('[data-sb=log]');
        const image = root.querySelector('[data-sb=message] [data-sb=attachment] img').getBoundingClientRect();
        return { log: log.scrollWidth - log.clientWidth, page: document.documentElement.scrollWidth - innerWidth,
                 right: image.right - innerWidth };""")
    assert overflow["log"] <= 0 and overflow["page"] <= 0 and overflow["right"] <= 0, overflow
    session_id = wait_for(widget.session_id, message="the conversation started by the file")
    assert gateway.value(f"SELECT count(*) FROM attachments WHERE session_id = '{session_id}'") == "1"
    screenshot(driver, "widget-attachment-phone.png")


def test_no_serious_accessibility_violations_with_attachments(gateway, browsers, tmp_path):
    operator, widget, session_id = start_conversation(gateway.base, browsers, "Axa", "Files, read aloud")
    choose(widget, saved(tmp_path, "photo.png", png(320, 240)))
    widget.send("A photo")
    choose(operator, saved(tmp_path, "terms.pdf", PDF))
    operator.reply("Our terms")
    wait_for(lambda: stored_files(widget, widget.MESSAGES, "application/pdf")
             and stored_files(operator, operator.MESSAGES, "image/png"), 10, "both files on both sides")
    choose(widget, saved(tmp_path, "nope.zip", b"PK"))  # a refusal shown in the tray
    choose(operator, saved(tmp_path, "waiting.png", png(64, 64)))  # a file waiting in the console's tray
    found = {"widget": serious(axe_results(widget.driver)), "console": serious(axe_results(operator.driver))}
    assert not any(found.values()), f"critical or serious violations: {found}"
