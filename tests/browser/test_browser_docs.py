"""The API's documentation at /docs: Swagger UI, from the app's own files, renders the
OpenAPI 3.1 document the app serves (Swagger UI 4 said "Unable to render this definition")."""

from __future__ import annotations

from typing import Any

from ..utils.ui import screenshot

METHODS = {"get", "put", "post", "delete", "patch", "head", "options"}


def test_the_docs_render_every_operation(page: Any, live_server: str) -> None:
    spec = page.request.get(f"{live_server}/openapi.json").json()
    assert spec["openapi"].startswith("3.1")
    operations = sorted(
        (method.upper(), path)
        for path, item in spec["paths"].items()
        for method in item
        if method in METHODS
    )
    blocked: list[str] = []
    page.on("console", lambda m: blocked.append(m.text) if "Content Security" in m.text else None)
    page.goto(f"{live_server}/docs")
    page.locator(".opblock").first.wait_for()
    shown = sorted(
        (
            block.locator(".opblock-summary-method").inner_text(),
            block.locator(".opblock-summary-path").get_attribute("data-path"),
        )
        for block in page.locator(".opblock").all()
    )
    assert shown == operations
    assert "Unable to render" not in page.locator("body").inner_text()
    assert page.locator(".info .title").inner_text().startswith("MAGDAGDON")
    assert not blocked, blocked
    screenshot(page, "docs-390x844")


def test_the_docs_ask_for_nothing_the_server_does_not_have(page: Any, live_server: str) -> None:
    """/docs logged a 404: the browser's /favicon.ico (the page names no icon)."""
    failed: list[str] = []
    page.on("console", lambda m: failed.append(m.text) if m.type == "error" else None)
    page.goto(f"{live_server}/docs")
    page.locator(".opblock").first.wait_for()
    page.wait_for_load_state("networkidle")
    icon = page.request.get(f"{live_server}/favicon.ico")
    assert icon.ok and icon.headers["content-type"].startswith("image/"), icon.status
    assert not failed, failed
