"""ChatGPT's names: the tools a reply can address, and the reasons a page lists for what it leaves out.

Kept apart from the code that reads messages so that a tool ChatGPT adds is one line here.
"""

from __future__ import annotations

from sessite.model import ToolCategory

NAME = "chatgpt"
AGENT = "chatgpt"

# A reply addressed to a tool (``recipient``) is a call; these are ChatGPT's own tool names.
# A plugin or action (``Weather.get_forecast``) is OTHER, as is any name not listed.
CATEGORIES = {
    "python": ToolCategory.OTHER,  # the code interpreter: Python, not a shell
    "browser": ToolCategory.WEB,
    "web": ToolCategory.WEB,
    "web.run": ToolCategory.WEB,
    "web.search": ToolCategory.WEB,
    "web.open_url": ToolCategory.WEB,
    "dalle.text2im": ToolCategory.MEDIA,
    "image_gen.text2im": ToolCategory.MEDIA,
    "t2uay3k.sj1i4kz": ToolCategory.MEDIA,  # the image generator's recipient in late-2025 exports (seen)
    "container.exec": ToolCategory.SHELL,  # agent mode's terminal: {"cmd": [...]}
    "canmore.create_textdoc": ToolCategory.EDIT,
    "canmore.update_textdoc": ToolCategory.EDIT,
    "canmore.comment_textdoc": ToolCategory.EDIT,
    "myfiles_browser": ToolCategory.SEARCH,
    "file_search": ToolCategory.SEARCH,
    "file_search.msearch": ToolCategory.SEARCH,
    "bio": ToolCategory.OTHER,  # memory
}

# Code a call runs, by tool: the language its fence is given on the page.
CODE_LANGUAGES = {"python": "python"}

# Recipients that mean "the user": a reply to them is prose, not a call.
TO_USER = ("all", "", None)

# Reasons for what is not shown (the session page lists them with their counts).
ROOT = "the message tree's root (no message)"
HIDDEN_EMPTY = "empty message ChatGPT hides (a placeholder system or context message)"
EMPTY = "message without text or attachments"
BRANCH_EMPTY = "message without content on a branch not kept"
MERGED_VERSION = "message of another version (shown in the note where the conversation branched)"
MERGED_RECAP = "reasoning time (shown with the reasoning it closes)"

# Conversation keys kept in the session's details, with the label they get there.
CONVERSATION_FACTS = (
    ("gizmo_id", "custom GPT"),
    ("gizmo_type", "custom GPT type"),
    ("conversation_template_id", "template"),
    ("default_model_slug", "default model"),
    ("conversation_origin", "origin"),
    ("voice", "voice"),
    ("is_archived", "archived"),
    ("is_starred", "starred"),
    ("is_study_mode", "study mode"),
    ("is_do_not_remember", "not remembered"),
    ("memory_scope", "memory scope"),
    ("async_status", "async status"),
)
