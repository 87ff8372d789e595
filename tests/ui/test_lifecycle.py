"""The UI's lifecycle (issue 59): a board that fails to load stops its event
stream and offers "Try again"; leaving a page, or navigating twice quickly,
destroys everything the page made."""

from conftest import new_page, open_board, expect, axe, location

# Keeps every EventSource the page opens, so a test can see which are open.
TRACK_STREAMS = """
(() => {
    const Real = window.EventSource;
    window.streams = [];
    window.EventSource = class extends Real {
        constructor(...args) { super(...args); window.streams.push(this); }
    };
})();
"""


def open_streams(page):
    return page.evaluate("() => window.streams.filter((s) => s.readyState !== EventSource.CLOSED).length")


def test_a_board_that_fails_to_load_stops_its_stream_and_offers_try_again(page, server):
    server.card("Still here")
    page.add_init_script(TRACK_STREAMS)
    page.route("**/api/board?*", lambda route: route.fulfill(
        status=503, content_type="application/json",
        body='{"error": "UNAVAILABLE", "message": "The database is busy."}'))
    page.goto(f"/w/{server.tenant}")
    expect(page.get_by_role("alert")).to_contain_text("The board could not be loaded: The database is busy.")
    again = page.get_by_role("button", name="Try again")
    expect(again).to_be_focused()
    assert open_streams(page) == 0
    page.wait_for_timeout(3500)  # a stream left open would have reconnected by now
    assert open_streams(page) == 0
    assert axe(page) == []
    page.unroute("**/api/board?*")
    again.click()
    expect(page.get_by_role("link", name="Still here", exact=True)).to_be_visible()
    expect(again).to_be_hidden()
    assert open_streams(page) == 1
    server.card("Arrived live")
    expect(page.get_by_role("link", name="Arrived live", exact=True)).to_be_visible()


def test_leaving_a_board_closes_its_stream(page, server):
    page.add_init_script(TRACK_STREAMS)
    open_board(page, server)
    assert open_streams(page) == 1
    page.get_by_role("link", name="Archived cards").click()
    expect(page.get_by_role("heading", name="Archived cards of")).to_be_visible()
    assert open_streams(page) == 0
    page.go_back()
    expect(page.get_by_role("region", name="To do")).to_be_visible()
    assert open_streams(page) == 1


def test_a_board_left_while_loading_is_destroyed_when_it_answers(page, server):
    project = server.ok("POST", "/api/projects", {"tenantId": server.tenant, "name": "Alpha"})
    server.card("Workspace card")
    page.add_init_script(TRACK_STREAMS)
    open_board(page, server)
    held = []
    page.route(f"**/api/board?*project={project['id']}*", lambda route: held.append(route))
    # Two navigations at once: the project's board (held), then the whole workspace's.
    page.evaluate("""(p) => {
        history.pushState(null, "", p);
        dispatchEvent(new PopStateEvent("popstate"));
        history.pushState(null, "", location.pathname.split("/p/")[0]);
        dispatchEvent(new PopStateEvent("popstate"));
    }""", f"/w/{server.tenant}/p/{project['id']}")
    expect(page.get_by_role("link", name="Workspace card", exact=True)).to_be_visible()
    page.wait_for_function("() => true")
    assert held, "the project's board was asked for"
    held[0].continue_()
    page.wait_for_timeout(500)
    # The late answer changed nothing: the workspace's board follows its events.
    assert open_streams(page) == 1
    server.card("Live after the race")
    expect(page.get_by_role("link", name="Live after the race", exact=True)).to_be_visible()
    assert location(page).endswith(f"/w/{server.tenant}")
