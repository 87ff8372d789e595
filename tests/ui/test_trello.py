"""Settings → "Import from Trello" (api.md §28): the file is checked first
(a dry run that writes nothing), its unmapped members can be mapped, then
the board comes in and shows."""

import json
import urllib.request
import uuid

from conftest import expect, axe, open_board

# A Trello board export in Trello's own shape, cut to what this story needs.
BOARD = "65e1f1000000000000000001"
LIST_TODO, LIST_IDEAS = "65e1f1010000000000000002", "65e1f1020000000000000003"
CARD, MEMBER, LABEL = "65e1f1030000000000000004", "65e1f1040000000000000005", "65e1f1050000000000000006"
ZOE = {"id": MEMBER, "username": "zoe_t", "fullName": "Zoë Trello"}
TRELLO = {
    "id": BOARD, "name": "Launch plan", "desc": "", "closed": False,
    "lists": [{"id": LIST_TODO, "name": "To do", "closed": False, "pos": 16384},
              {"id": LIST_IDEAS, "name": "Ideas", "closed": False, "pos": 32768}],
    "cards": [{"id": CARD, "name": "Imported from Trello", "desc": "It came *whole*.", "closed": False,
               "idList": LIST_IDEAS, "pos": 16384, "due": None, "idLabels": [LABEL],
               "idMembers": [MEMBER], "idChecklists": []}],
    "labels": [{"id": LABEL, "name": "", "color": "green", "idBoard": BOARD}],
    "members": [ZOE],
    "checklists": [],
    "actions": [{"id": "65e1f1060000000000000007", "type": "commentCard", "date": "2024-03-02T10:00:00.000Z",
                 "idMemberCreator": MEMBER, "memberCreator": ZOE,
                 "data": {"text": "First!", "card": {"id": CARD, "name": "Imported from Trello"},
                          "list": {"id": LIST_IDEAS, "name": "Ideas"}}}],
}


def titles(server):
    return [c["title"] for col in server.board()["columns"] for c in col["cards"]]


def test_a_trello_export_is_checked_mapped_and_imported_from_settings(page, server, tmp_path):
    export = tmp_path / "launch-plan.json"
    export.write_text(json.dumps(TRELLO), encoding="utf-8")
    page.goto(f"/w/{server.tenant}/settings")
    region = page.get_by_role("region", name="Import from Trello")
    region.get_by_label("Trello export (.json)").set_input_files(str(export))
    region.get_by_role("button", name="Check the file").click()
    expect(region.get_by_role("heading", name="“Launch plan” would bring")).to_be_visible()
    expect(region).to_contain_text("1 new (0 archived), 0 already here")
    expect(region).to_contain_text("1 matched, 1 new")
    assert "Imported from Trello" not in titles(server), "a check writes nothing"
    region.get_by_label("Account for Zoë Trello").select_option(label="admin")
    assert axe(page) == []
    region.get_by_role("button", name="Import", exact=True).click()
    expect(region).to_contain_text("Imported “Launch plan”: 1 card.")
    region.get_by_role("link", name="See the board").click()
    expect(page.get_by_role("heading", name="Ideas")).to_be_visible()
    expect(page.get_by_role("link", name="Imported from Trello", exact=True)).to_be_visible()
    card = next(c for col in server.board()["columns"] for c in col["cards"] if c["title"] == "Imported from Trello")
    me = server.ok("GET", "/api/me")
    assert card["assigneeIds"] == [me["id"]], card
    assert card["commentCount"] == 1, card
    assert not page.errors, page.errors


def import_by_api(server, export):
    """`POST /api/imports/trello` as another client would: a multipart form."""
    boundary = uuid.uuid4().hex
    parts = [("tenantId", None, server.tenant.encode()), ("file", "board.json", json.dumps(export).encode())]
    body = b"".join(
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"".encode()
        + (f"; filename=\"{filename}\"\r\nContent-Type: application/json".encode() if filename else b"")
        + b"\r\n\r\n" + data + b"\r\n"
        for name, filename, data in parts) + f"--{boundary}--\r\n".encode()
    req = urllib.request.Request(server.base + "/api/imports/trello", data=body, method="POST", headers={
        "Authorization": f"Bearer {server.token}", "Content-Type": f"multipart/form-data; boundary={boundary}"})
    with urllib.request.urlopen(req) as r:
        assert r.status == 201


def test_a_board_open_elsewhere_shows_an_import_when_it_completes(page, server):
    open_board(page, server)
    expect(page.get_by_role("link", name="Imported from Trello", exact=True)).to_have_count(0)
    import_by_api(server, TRELLO)
    expect(page.get_by_role("region", name="Ideas")).to_be_visible()
    expect(page.get_by_role("link", name="Imported from Trello", exact=True)).to_be_visible()
    assert not page.errors, page.errors
