"""The names of Google Antigravity's files and steps, its tools' categories, and what is left out and why."""

from __future__ import annotations

from types import MappingProxyType

from sessite.model import ToolCategory

NAME = "antigravity"
AGENT = "antigravity"

HOMES = ("antigravity", "antigravity-cli", "antigravity-ide")  # under ~/.gemini
BRAIN = "brain"  # brain/<conversation id>/: artifacts, .system_generated/
SYSTEM_GENERATED = ".system_generated"
TRANSCRIPT = "transcript.jsonl"  # .system_generated/logs/: the steps (long values may be cut)
TRANSCRIPT_FULL = "transcript_full.jsonl"  # the same steps, whole
SIDE_FOLDERS = {"conversations": ".pb", "implicit": ".pb"}  # beside brain/: encrypted, one per conversation
CONVERSATION_DB = ".db"  # conversations/<id>.db: binary step payloads
ANNOTATIONS = "annotations"  # annotations/<id>.pbtxt: when the user last looked, archived

# Step sources and types.
USER_INPUT = "USER_INPUT"
PLANNER_RESPONSE = "PLANNER_RESPONSE"
CHECKPOINT = "CHECKPOINT"
CONVERSATION_HISTORY = "CONVERSATION_HISTORY"
SYSTEM = "SYSTEM"
FAILED_STATUSES = frozenset({"ERROR", "FAILED", "CANCELED", "CANCELLED"})
# Step fields the events show; the others go to the event's details.
STEP_SHOWN = frozenset({"step_index", "source", "type", "created_at", "content", "thinking", "tool_calls", "exit_code"})

# Tool names as Antigravity's planner calls them ("default_api:" may prefix them).
TOOL_CATEGORIES = MappingProxyType(
    {
        "run_command": ToolCategory.SHELL,
        "command_status": ToolCategory.SHELL,
        "send_command_input": ToolCategory.SHELL,
        "view_file": ToolCategory.READ,
        "view_file_outline": ToolCategory.READ,
        "view_code_item": ToolCategory.READ,
        "list_dir": ToolCategory.SEARCH,
        "grep_search": ToolCategory.SEARCH,
        "find_by_name": ToolCategory.SEARCH,
        "codebase_search": ToolCategory.SEARCH,
        "write_to_file": ToolCategory.EDIT,
        "replace_file_content": ToolCategory.EDIT,
        "multi_replace_file_content": ToolCategory.EDIT,
        "search_web": ToolCategory.WEB,
        "read_url_content": ToolCategory.WEB,
        "browser_subagent": ToolCategory.WEB,
        "generate_image": ToolCategory.MEDIA,
    }
)
# A tool step with no call before it is named by its type.
STEP_CATEGORIES = MappingProxyType(
    {
        "RUN_COMMAND": ToolCategory.SHELL,
        "COMMAND_STATUS": ToolCategory.SHELL,
        "VIEW_FILE": ToolCategory.READ,
        "VIEW_FILE_OUTLINE": ToolCategory.READ,
        "VIEW_CODE_ITEM": ToolCategory.READ,
        "LIST_DIRECTORY": ToolCategory.SEARCH,
        "GREP_SEARCH": ToolCategory.SEARCH,
        "FIND": ToolCategory.SEARCH,
        "CODEBASE_SEARCH": ToolCategory.SEARCH,
        "CODE_ACTION": ToolCategory.EDIT,
        "SEARCH_WEB": ToolCategory.WEB,
        "READ_URL_CONTENT": ToolCategory.WEB,
        "GENERATE_IMAGE": ToolCategory.MEDIA,
    }
)
PATH_KEYS = ("TargetFile", "AbsolutePath", "DirectoryPath", "SearchPath", "SearchDirectory", "File", "Path")
COMMAND_KEYS = ("CommandLine", "Command")

ENCRYPTED = "conversation file encrypted by Antigravity (AES): not read"
PROTOBUF_DB = "conversation database of binary step payloads (no published schema): not read"
HISTORY_MARKER = "conversation-history marker without content"
EMPTY_SYSTEM = "system step without content"
EMPTY_RESPONSE = "planner response without thinking, text or calls"
SAME_STEP = "the same step in transcript_full.jsonl"
SAME_REVISION = "identical to the artifact's revision before it"
ARTIFACT_META = "artifact metadata, shown with the artifact"
ANNOTATION = "annotation of the conversation, shown in the session's metadata"
LONE_ANNOTATION = "annotations of a conversation whose brain folder is not here"
OTHER_FILE = "file of the conversation this reader does not show (an image, a recording …)"
