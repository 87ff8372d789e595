"""The card dialog's comments, attachments and links (§25), and a VIEWER's
read-only dialog; found by role and accessible name."""

import base64
import json
import re
import struct
import urllib.request
import zlib

import pytest

from conftest import BACKENDS, PASSWORD, Server, new_page, expect, axe, eventually
from test_card import open_card


def png(width=2, height=2):
    """A valid PNG of `width` × `height` red pixels."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))


def member_token(server, name, role="MEMBER"):
    """A new account of `role` in the workspace (through an invitation); its session token."""
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": role})
    server.ok("POST", "/api/invitations/accept", {"code": invitation["code"], "name": name, "password": PASSWORD}, token="")
    req = urllib.request.Request(server.base + "/api/session", method="POST",
                                 data=json.dumps({"name": name, "password": PASSWORD}).encode(),
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req) as r:
        return re.search(r"board_session=([^;]+)", r.headers["Set-Cookie"]).group(1)


def comments(server, card):
    return server.ok("GET", f"/api/cards/{card['id']}/comments")


def send_files(locator, kind, files):
    """Dispatches a `paste` or `drop` of `files` [(name, type, bytes)] on `locator`."""
    locator.evaluate("""(el, [kind, files]) => {
        const dt = new DataTransfer();
        for (const [name, type, b64] of files) {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            dt.items.add(new File([bytes], name, { type }));
        }
        const event = kind === "paste"
            ? new ClipboardEvent("paste", { clipboardData: dt, bubbles: true, cancelable: true })
            : new DragEvent("drop", { dataTransfer: dt, bubbles: true, cancelable: true });
        el.dispatchEvent(event);
    }""", [kind, [(n, t, base64.b64encode(b).decode()) for n, t, b in files]])


# Comments

def test_a_comment_is_written_in_markdown_and_shown_as_the_servers_html(page, server):
    card = server.card("Talked about")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Comments")
    expect(region).to_contain_text("No comments yet.")
    payload = "Some **bold** <script>window.ran = 1</script><img src=x onerror=\"window.ran = 2\">"
    region.get_by_role("textbox", name="Write a comment").fill(payload)
    region.get_by_role("button", name="Comment").click()
    expect(region.get_by_role("listitem").locator("strong", has_text="bold")).to_be_visible()
    expect(region.get_by_role("textbox", name="Write a comment")).to_have_value("")
    assert [c["content"] for c in comments(server, card)] == [payload]
    assert region.locator("script, [onerror]").count() == 0
    assert page.evaluate("() => window.ran") is None
    assert axe(page) == []


def test_an_image_pasted_into_a_comment_is_uploaded_and_appears_in_it(page, server):
    card = server.card("Screenshot")
    dialog = open_card(page, server, card)
    box = dialog.get_by_role("textbox", name="Write a comment")
    box.fill("Look:")
    send_files(box, "paste", [("shot.png", "image/png", png())])
    expect(box).to_have_value(re.compile(r"^Look:\n!\[shot\.png\]\(/api/files/[^)]+\)\n$"))
    dialog.get_by_role("button", name="Comment").click()
    image = dialog.get_by_role("region", name="Comments").get_by_role("img", name="shot.png")
    expect(image).to_be_visible()
    page.wait_for_function("(img) => img.complete && img.naturalWidth === 2", arg=image.element_handle())
    [stored] = comments(server, card)
    assert [a["originalName"] for a in stored["attachments"]] == ["shot.png"]
    # The tile counts it among the card's attachments; the dialog lists it there too.
    files = dialog.get_by_role("region", name="Attachments")
    expect(files.get_by_role("listitem")).to_have_text(re.compile(r"^shot\.png .*in a comment$"))


def test_images_dropped_or_picked_are_bound_and_refusals_show_the_servers_message(page, server):
    card = server.card("Pictures")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Comments")
    box = region.get_by_role("textbox", name="Write a comment")
    send_files(box, "drop", [("dropped.png", "image/png", png())])
    expect(box).to_have_value(re.compile(r"dropped\.png"))
    region.get_by_label("Add images").set_input_files([{"name": "picked.png", "mimeType": "image/png", "buffer": png(3, 3)}])
    expect(box).to_have_value(re.compile(r"dropped\.png.*\n!\[picked\.png\]", re.S))
    # A text file named .png is refused by its content: 415, the server's message, nothing added.
    region.get_by_label("Add images").set_input_files([{"name": "fake.png", "mimeType": "image/png", "buffer": b"not an image"}])
    expect(region.get_by_role("alert")).to_contain_text(re.compile("PNG", re.I))
    expect(box).not_to_have_value(re.compile("fake"))
    region.get_by_role("button", name="Comment").click()
    expect(region.get_by_role("img")).to_have_count(2)
    [stored] = comments(server, card)
    assert sorted(a["originalName"] for a in stored["attachments"]) == ["dropped.png", "picked.png"]


@pytest.fixture(params=BACKENDS)
def small_server(request):
    s = Server(request.param, ["--max-attachment-bytes", "1000"])
    yield s
    s.stop()


def test_an_image_over_the_maximum_is_refused_with_the_servers_message(browser, small_server):
    page = new_page(browser, small_server)
    card = small_server.card("Big picture")
    dialog = open_card(page, small_server, card)
    region = dialog.get_by_role("region", name="Comments")
    region.get_by_label("Add images").set_input_files([{"name": "big.png", "mimeType": "image/png", "buffer": png(200, 200) + b"\0" * 2000}])
    alert = region.get_by_role("alert")
    expect(alert).to_be_visible()
    expect(alert).to_contain_text("1000")
    expect(region.get_by_role("textbox", name="Write a comment")).to_have_value("")
    assert not page.errors, page.errors
    page.context.close()


def test_only_ones_own_comments_show_edit_and_an_admin_may_delete_others(page, server):
    bruno = member_token(server, "Bruno")
    card = server.card("Shared")
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "from Bruno"}, token=bruno)
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "from the admin"})
    dialog = open_card(page, server, card)
    items = dialog.get_by_role("region", name="Comments").get_by_role("listitem")
    theirs, mine = items.filter(has_text="from Bruno"), items.filter(has_text="from the admin")
    expect(theirs).to_contain_text("Bruno")
    expect(theirs.get_by_role("button", name="Edit")).to_have_count(0)
    expect(theirs.get_by_role("button", name="Delete")).to_have_count(1)
    mine.get_by_role("button", name="Edit").click()
    editor = dialog.get_by_role("textbox", name="Edit comment")
    expect(editor).to_be_focused()
    editor.fill("from the admin, _edited_")
    dialog.get_by_role("button", name="Save").click()
    expect(mine.locator("em")).to_have_text("edited")
    expect(mine.get_by_role("button", name="Edit")).to_be_focused()
    theirs.get_by_role("button", name="Delete").click()
    confirm = page.get_by_role("dialog", name="Delete this comment?")
    confirm.get_by_role("button", name="Delete comment").click()
    expect(items).to_have_count(1)
    assert [c["content"] for c in comments(server, card)] == ["from the admin, _edited_"]


def test_a_comment_edited_meanwhile_shows_the_newer_text_and_keep_mine_overwrites(page, server):
    card = server.card("Contested")
    comment = server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "first"})
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Comments")
    region.get_by_role("button", name="Edit").click()
    region.get_by_role("textbox", name="Edit comment").fill("mine")
    server.ok("PATCH", f"/api/comments/{comment['id']}", {"content": "theirs"})
    region.get_by_role("button", name="Save").click()
    choice = region.get_by_role("group", name=re.compile("Someone else changed the comment"))
    expect(choice).to_contain_text("theirs")
    assert comments(server, card)[0]["content"] == "theirs"
    choice.get_by_role("button", name="Keep mine").click()
    eventually(lambda: comments(server, card)[0]["content"] == "mine")
    expect(region.get_by_role("listitem")).to_have_text(re.compile("mine"))


def test_a_comment_written_elsewhere_shows_live(page, server):
    card = server.card("Watched")
    dialog = open_card(page, server, card)
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "said *elsewhere*"})
    expect(dialog.get_by_role("region", name="Comments").locator("em")).to_have_text("elsewhere")


# Attachments

def test_files_are_uploaded_downloaded_and_deleted(page, server):
    card = server.card("Filed")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Attachments")
    expect(region).to_contain_text("No attachments.")
    region.get_by_label("Upload files").set_input_files([
        {"name": "notes.txt", "mimeType": "text/plain", "buffer": b"plain notes\n"},
        {"name": "red.png", "mimeType": "image/png", "buffer": png()},
    ])
    expect(region.get_by_role("link")).to_have_text(["notes.txt", "red.png"])
    href = region.get_by_role("link", name="notes.txt").get_attribute("href")
    assert page.request.get(href).body() == b"plain notes\n"
    region.get_by_role("button", name="Delete notes.txt").click()
    page.get_by_role("dialog", name="Delete “notes.txt”?").get_by_role("button", name="Delete").click()
    expect(region.get_by_role("link")).to_have_text(["red.png"])
    stored = server.ok("GET", f"/api/cards/{card['id']}/attachments")
    assert [a["originalName"] for a in stored] == ["red.png"]
    # Refused by content: the server's message, nothing stored.
    region.get_by_label("Upload files").set_input_files([{"name": "page.txt", "mimeType": "text/plain", "buffer": b"<html><script></script>"}])
    expect(region.get_by_role("alert")).to_be_visible()
    assert len(server.ok("GET", f"/api/cards/{card['id']}/attachments")) == 1
    assert axe(page) == []


# Links

def test_blocked_by_is_stored_as_the_other_card_blocking_this_one(page, server):
    card = server.card("Release")
    other = server.card("Fix the build")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Links")
    expect(region).to_contain_text("No links.")
    region.get_by_label("Link type").select_option(label="blocked by")
    region.get_by_role("searchbox", name="Find a card").fill("build")
    region.get_by_role("button", name="Search").click()
    region.get_by_role("list", name="Cards found").get_by_role("button", name="Fix the build").click()
    expect(region.get_by_role("list", name="Links").get_by_role("listitem")).to_have_text(re.compile("blocked by Fix the build"))
    [link] = server.ok("GET", f"/api/cards/{card['id']}/relations")
    assert (link["sourceId"], link["targetId"], link["kind"]) == (other["id"], card["id"], "BLOCKS")
    # Linking the same pair again: 409 and the server's message.
    region.get_by_label("Link type").select_option(label="related to")
    region.get_by_role("searchbox", name="Find a card").fill("build")
    region.get_by_role("button", name="Search").click()
    region.get_by_role("list", name="Cards found").get_by_role("button", name="Fix the build").click()
    expect(region.get_by_role("alert")).to_be_visible()
    assert len(server.ok("GET", f"/api/cards/{card['id']}/relations")) == 1
    assert axe(page) == []
    # The other card reads it from its side, and opens from the link.
    region.get_by_role("link", name="Fix the build").click()
    other_dialog = page.get_by_role("dialog", name="Fix the build")
    expect(other_dialog.get_by_role("list", name="Links").get_by_role("listitem")).to_have_text(re.compile("blocks Release"))
    other_dialog.get_by_role("button", name="Remove link: blocks “Release”").click()
    expect(other_dialog.get_by_role("region", name="Links")).to_contain_text("No links.")
    assert server.ok("GET", f"/api/cards/{card['id']}/relations") == []


@pytest.mark.parametrize("label, kind, reverse", [
    ("blocks", "BLOCKS", False), ("parent of", "PARENT", False), ("child of", "PARENT", True),
    ("generated", "GENERATED", False), ("related to", "RELATED", False)])
def test_each_link_type_stores_its_kind_and_direction(page, server, label, kind, reverse):
    card = server.card("Here")
    other = server.card("There")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Links")
    region.get_by_label("Link type").select_option(label=label)
    region.get_by_role("searchbox", name="Find a card").fill("There")
    region.get_by_role("button", name="Search").click()
    region.get_by_role("list", name="Cards found").get_by_role("button", name="There").click()
    expect(region.get_by_role("list", name="Links").get_by_role("listitem")).to_have_text(re.compile(f"{label} There"))
    [link] = server.ok("GET", f"/api/cards/{card['id']}/relations")
    ends = (other["id"], card["id"]) if reverse else (card["id"], other["id"])
    assert (link["sourceId"], link["targetId"], link["kind"]) == (*ends, kind)


def test_a_link_to_the_card_itself_shows_the_servers_refusal(page, server):
    card = server.card("Lonely")
    dialog = open_card(page, server, card)
    region = dialog.get_by_role("region", name="Links")
    region.get_by_role("searchbox", name="Find a card").fill("Lonely")
    region.get_by_role("button", name="Search").click()
    region.get_by_role("list", name="Cards found").get_by_role("button", name="Lonely (this card)").click()
    expect(region.get_by_role("alert")).to_contain_text(re.compile("itself", re.I))
    assert server.ok("GET", f"/api/cards/{card['id']}/relations") == []


# A VIEWER

def test_a_viewer_reads_the_dialog_and_is_offered_no_change(browser, server):
    card = server.card("Read only")
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "a comment"})
    server.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": "an item"})
    server.ok("POST", f"/api/cards/{card['id']}/relations", {"targetId": server.card("Another")["id"], "kind": "RELATED"})
    token = member_token(server, "Vera", "VIEWER")
    page = new_page(browser, server, signed_in=False)
    page.context.add_cookies([{"name": "board_session", "value": token, "url": server.base}])
    dialog = open_card(page, server, card)
    expect(dialog.get_by_role("region", name="Comments")).to_contain_text("a comment")
    expect(dialog.get_by_role("region", name="Links")).to_contain_text("related to Another")
    expect(dialog.get_by_role("checkbox", name="an item")).to_be_disabled()
    expect(dialog.get_by_role("button")).to_have_text(["Close"])
    expect(dialog.locator("input:enabled:visible, textarea:visible, select:enabled:visible")).to_have_count(0)
    assert axe(page) == []
    page.keyboard.press("Escape")
    expect(page.get_by_role("link", name="Read only", exact=True)).to_be_focused()
    assert not page.errors, page.errors
    page.context.close()
