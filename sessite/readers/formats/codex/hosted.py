"""Tools the model service runs itself: web search, tool search and image generation.

A web search (or an image generation) is written twice, once as a response item
(``web_search_call``, ``image_generation_call``) and once as an ``event_msg``
notice (``web_search_end``, ``image_generation_end``) with the same id, in
either order, and some versions write only one of them. The first copy becomes
the call and its result; the other fills in what it adds and is noted as merged.
Up to 0.142 Codex keeps what a web search looked for, not what it found: the
result says so. From 0.145 the notice lists the results (title, address,
snippet), and a search made by the ``web.run`` function is that call's notice.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, NamedTuple

from sessite.model import Block, Kind, ToolCategory
from sessite.readers._util import obj, text_of
from sessite.readers.base import as_text
from sessite.readers.formats.codex.assembly import Assembly

NO_WEB_RESULT = "No result recorded: Codex keeps what the search looked for, not what it returned."
_IMAGE_MAGIC = {"iVBOR": "image/png", "/9j/": "image/jpeg", "R0lGOD": "image/gif", "UklGR": "image/webp"}


class _Search(NamedTuple):
    """One copy of a web search, as either stream writes it."""

    sid: str | None  # the id both copies share (``id`` of the item, ``call_id`` of the notice)
    action: dict[str, Any]  # search / open_page / find_in_page, with its query or address
    status: str | None  # the item's status
    query: str | None  # the notice's query
    found: Any  # results (or sources) the record lists, when it lists any


class _Open(NamedTuple):
    """A search or generation seen from one stream only, waiting for its copy from the other."""

    stream: str  # "item" or "event"
    sid: str | None  # the id both copies share, when the records have one
    query: str  # what a web search looked for (pairs copies without an id)
    call_id: str


class HostedToolHandling(Assembly):
    """Web searches, tool searches and image generations: one call and one result each."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.open_hosted: dict[str, list[_Open]] = {}  # tool -> copies awaiting their twin

    # ---- web search

    def web_search_item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        sid = text_of(p.get("id")) or text_of(p.get("call_id"))
        action = obj(p.get("action"))
        found = p.get("results") or action.get("sources")  # sources: when the Responses API was asked for them
        self._web_search(lineno, ts, "item", _Search(sid, action, text_of(p.get("status")), None, found))

    def web_search_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        if call_id and call_id in self.calls and not self._is_open("web_search", call_id):
            index = self.calls[call_id]  # a web.run function call: its output is the result
            self.events[index] = replace(self.events[index], category=ToolCategory.WEB)
            self.merged(lineno, "web_search_end (the web.run call it reports on shows the search and its result)")
            return
        search = _Search(call_id, obj(p.get("action")), None, text_of(p.get("query")), p.get("results"))
        self._web_search(lineno, ts, "event", search)

    def _is_open(self, tool: str, call_id: str) -> bool:
        return any(seen.call_id == call_id for seen in self.open_hosted.get(tool, []))

    def _web_search(self, lineno: int, ts: Any, stream: str, search: _Search) -> None:
        text = web_search_text(search.action) or search.query or ""
        twin = self._twin("web_search", stream, search.sid, text)
        if twin is not None:
            self._complete_web_search(twin.call_id, search)
            name = "web_search_end" if stream == "event" else "web_search_call"
            self.merged(lineno, f"{name} (the other copy of a web search, shown once)")
            return
        call_id = search.sid or f"web-{self.keys.get(lineno) or lineno}"
        tool_input = search.action or ({"query": search.query} if search.query else None)
        status = search.status
        meta = {"status": status} if status and status != "completed" else {}
        self._call_and_its_result(
            lineno,
            ts,
            call_id,
            dict(tool_name="web_search", category=ToolCategory.WEB, tool_input=tool_input, text=text, meta=meta),
            dict(tool_name="web_search", text=web_result_text(search.found, status), is_error=status == "failed"),
        )
        self.open_hosted.setdefault("web_search", []).append(_Open(stream, search.sid, text, call_id))

    def _complete_web_search(self, call_id: str, search: _Search) -> None:
        """The second copy of a search: it fills what the first lacked (the action, the status, the results)."""
        index = self.calls[call_id]
        call = self.events[index]
        action = {**search.action, **obj(call.tool_input)}
        meta = dict(call.meta)
        if search.status and search.status != "completed":
            meta["status"] = search.status
        text = call.text or web_search_text(action) or search.query or ""
        self.events[index] = replace(call, text=text, tool_input=action or None, meta=meta)
        if call_id in self.results and (search.found or search.status):
            index = self.results[call_id]
            result = self.events[index]
            found = web_result_text(search.found, meta.get("status"))
            better = found if result.text == NO_WEB_RESULT or search.found else result.text
            self.events[index] = replace(result, text=better, is_error=result.is_error or search.status == "failed")

    # ---- tool search

    def tool_search_call(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id")) or text_of(p.get("id")) or f"tool-search-{self.keys.get(lineno)}"
        args = p.get("arguments")
        found = obj(args)
        text = as_text(found.get("query") or found.get("goal") or "") or ", ".join(
            as_text(x) for x in found.get("paths") or [] if x
        )
        meta = {k: p[k] for k in ("execution", "status") if text_of(p.get(k)) and p[k] != "completed"}
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_CALL,
            tool_name="tool_search",
            category=ToolCategory.SEARCH,
            tool_input=args,
            text=text,
            call_id=call_id,
            model=self.model,
            meta=meta,
        )
        self.calls.setdefault(call_id, index)

    def tool_search_output(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        call_id = text_of(p.get("call_id"))
        listed = p.get("tools")
        tools: list[Any] = listed if isinstance(listed, list) else []
        blocks = (Block("json", title="tool definitions", data=tools),) if tools else ()
        index = self.emit(
            lineno,
            ts,
            kind=Kind.TOOL_RESULT,
            tool_name="tool_search",
            call_id=call_id,
            text=tool_list_text(tools) or "No tools found.",
            blocks=blocks,
            is_error=p.get("status") == "failed",
            meta={"unmatched_call": True} if call_id and call_id not in self.calls else {},
        )
        if call_id:
            self.results.setdefault(call_id, index)

    # ---- image generation

    def image_generation_item(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        self._image(lineno, ts, "item", text_of(p.get("id")) or text_of(p.get("call_id")), p)

    def image_generation_end(self, lineno: int, ts: Any, p: dict[str, Any]) -> None:
        self._image(lineno, ts, "event", text_of(p.get("call_id")), p)

    def _image(self, lineno: int, ts: Any, stream: str, sid: str | None, p: dict[str, Any]) -> None:
        status = text_of(p.get("status"))
        result = image_blocks(p.get("result"), text_of(p.get("saved_path")))
        twin = self._twin("image_generation", stream, sid, "") if sid else None
        if twin is not None:
            index = self.results[twin.call_id]
            event = self.events[index]
            saved = {"saved_path": p["saved_path"]} if text_of(p.get("saved_path")) else {}
            self.events[index] = replace(event, blocks=event.blocks or result, meta={**saved, **event.meta})
            name = "image_generation_end" if stream == "event" else "image_generation_call"
            self.merged(lineno, f"{name} (the same image generation, shown once)")
            return
        call_id = sid or f"image-{self.keys.get(lineno) or lineno}"
        prompt = as_text(p.get("revised_prompt"))
        meta = {"status": status} if status and status != "completed" else {}
        saved = {"saved_path": p["saved_path"]} if text_of(p.get("saved_path")) else {}
        self._call_and_its_result(
            lineno,
            ts,
            call_id,
            dict(tool_name="image_generation", category=ToolCategory.MEDIA, text=prompt, meta=meta),
            dict(
                tool_name="image_generation",
                blocks=result,
                text="" if result else "No image recorded.",
                is_error=status == "failed",
                meta=saved,
            ),
        )
        self.open_hosted.setdefault("image_generation", []).append(_Open(stream, sid, "", call_id))

    # ---- shared

    def _twin(self, tool: str, stream: str, sid: str | None, query: str) -> _Open | None:
        """The open copy from the other stream this record repeats (by id, or by query when either has none)."""
        waiting = self.open_hosted.get(tool, [])
        for index, seen in enumerate(waiting):
            if seen.stream == stream:
                continue
            if (sid and seen.sid == sid) or ((not sid or not seen.sid) and query and seen.query == query):
                del waiting[index]
                return seen
        return None

    def _call_and_its_result(
        self, lineno: int, ts: Any, call_id: str, call: dict[str, Any], result: dict[str, Any]
    ) -> None:
        """One record that is both a call and its outcome: two events, paired by ``call_id``."""
        call_index = self.emit(lineno, ts, kind=Kind.TOOL_CALL, call_id=call_id, model=self.model, **call)
        result_index = self.emit(lineno, ts, suffix="-result", kind=Kind.TOOL_RESULT, call_id=call_id, **result)
        self.calls.setdefault(call_id, call_index)
        self.results.setdefault(call_id, result_index)


def web_search_text(action: dict[str, Any]) -> str:
    """The query (and any further queries), page or find-in-page pattern a web search action shows."""
    atype = action.get("type")
    if atype == "search" or "query" in action:
        text = as_text(action.get("query"))
        queries = action.get("queries")
        if isinstance(queries, list) and len(queries) > 1:
            text += "\n\n" + "\n".join(f"- {as_text(q)}" for q in queries)
        return text
    if atype == "open_page":
        return as_text(action.get("url"))
    if atype == "find_in_page":
        return f"“{as_text(action.get('pattern'))}” in {as_text(action.get('url'))}"
    return ""


def web_result_text(found: Any, status: str | None) -> str:
    """What a web search's result can say: the results the record lists, or that none was recorded."""
    if isinstance(found, list) and found:
        return "\n".join(_result_line(item) for item in found)
    if isinstance(found, str) and found.strip():
        return found
    if status and status not in ("completed",):
        return f"The search ended as {status}; no result recorded."
    return NO_WEB_RESULT


def _result_line(found: Any) -> str:
    """One search result: its title and address, and its snippet on the next line."""
    if not isinstance(found, dict):
        return f"- {as_text(found)}"
    title = as_text(found.get("title"))
    url = as_text(found.get("url")) or as_text(found.get("domain"))
    head = f"{title} <{url}>" if title and url else (title or url or as_text(found.get("ref_id")) or "result")
    snippet = as_text(found.get("snippet")).strip()
    return f"- {head}" + (f"\n  {snippet}" if snippet else "")


def web_run_text(args: Any) -> str:
    """What a ``web.run`` call asks for: its queries and the pages it opens, one a line."""
    found = obj(args)
    lines = [as_text(obj(q).get("q")) for q in found.get("search_query") or [] if isinstance(q, dict)]
    lines += [as_text(obj(o).get("ref_id")) for o in found.get("open") or [] if isinstance(o, dict)]
    lines += [f"“{as_text(obj(x).get('pattern'))}” in {as_text(obj(x).get('ref_id'))}" for x in found.get("find") or []]
    return "\n".join(line for line in lines if line)


def tool_list_text(tools: list[Any]) -> str:
    """The tools a tool search loaded, one line each (a namespace's tools indented under it)."""
    lines: list[str] = []
    for tool in tools:
        found = obj(tool)
        lines.append(_tool_line(found, ""))
        lines.extend(_tool_line(obj(inner), "  ") for inner in found.get("tools") or [] if isinstance(inner, dict))
    return "\n".join(line for line in lines if line.strip())


def _tool_line(tool: dict[str, Any], indent: str) -> str:
    name = as_text(tool.get("name"))
    about = as_text(tool.get("description")).strip().split("\n", 1)[0]
    return f"{indent}{name}: {about}" if about else f"{indent}{name}"


def image_blocks(result: Any, saved_path: str | None) -> tuple[Block, ...]:
    """A generated image as an image block (its base64 payload never becomes text)."""
    if not isinstance(result, str) or not result.strip():
        return (Block("image", title=saved_path),) if saved_path else ()
    data = result.strip()
    if data.startswith("data:"):
        mime = data[5 : data.find(";")] if ";" in data[:100] else None
        return (Block("image", uri=data, mime=mime, title=saved_path),)
    mime = next((m for magic, m in _IMAGE_MAGIC.items() if data.startswith(magic)), "image/png")
    return (Block("image", uri=f"data:{mime};base64,{data}", mime=mime, title=saved_path),)
