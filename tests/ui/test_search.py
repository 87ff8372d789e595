"""Search as people expect it (api.md §29): results while typing, plain-text
snippets, and an "Include archived" switch that marks archived cards."""

from conftest import open_board, expect, axe


def test_results_come_while_typing_with_plain_snippets_and_archived_on_request(page, server):
    server.card("Release checklist")
    talk = server.card("Weekly meeting")
    server.ok("POST", f"/api/cards/{talk['id']}/comments",
              {"content": "**Release** on Friday, see [the guide](https://example.com/guide)"})
    old = server.card("Release of last year")
    server.ok("POST", f"/api/cards/{old['id']}/archive")
    open_board(page, server)
    search = page.get_by_role("search")
    search.get_by_role("searchbox", name="Search").press_sequentially("releas", delay=40)
    results = search.get_by_role("list", name="2 cards found")
    expect(results).to_be_visible()  # no Enter pressed
    expect(results).to_contain_text("Release on Friday, see the guide")
    expect(results).not_to_contain_text("**")
    expect(results).not_to_contain_text("https://")
    expect(search.get_by_role("link", name="Release of last year")).to_have_count(0)
    assert axe(page) == []
    search.get_by_role("checkbox", name="Include archived").check()
    found = search.get_by_role("list", name="3 cards found")
    expect(found).to_be_visible()
    expect(found.get_by_role("listitem").filter(has=page.get_by_role("link", name="Release of last year"))).to_contain_text("Archived")
    search.get_by_role("link", name="Release of last year").click()
    expect(page.get_by_role("dialog", name="Release of last year")).to_be_visible()


def test_the_newest_answer_wins(page, server):
    server.card("Alpha plan")
    server.card("Alphabet soup")
    open_board(page, server)
    held = []
    page.route("**/api/search?*q=alpha&*", lambda route: held.append(route))
    page.route("**/api/search?*q=alpha", lambda route: held.append(route))
    box = page.get_by_role("search").get_by_role("searchbox", name="Search")
    box.fill("alpha")
    page.wait_for_timeout(500)
    assert held, "the first query was sent"
    box.fill("alphabet")
    found = page.get_by_role("search").get_by_role("list", name="1 card found")
    expect(found).to_contain_text("Alphabet soup")
    held[0].continue_()  # the older answer arrives last
    page.wait_for_timeout(500)
    expect(found).to_be_visible()
    expect(page.get_by_role("search").get_by_role("list", name="2 cards found")).to_have_count(0)
