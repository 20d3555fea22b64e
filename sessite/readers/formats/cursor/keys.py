"""Names Cursor's stores use, and how this reader labels what it reads."""

NAME = "cursor"
AGENT = "cursor"
DB_NAME = "state.vscdb"
# Tables holding the key/value pairs, newest layout first.
TABLES = ("cursorDiskKV", "ItemTable")
COMPOSER = "composerData:"
BUBBLE = "bubbleId:"
# A workspace database's list of its composers (and the global one's names and archive flags).
INDEX_KEY = "composer.composerData"
LEGACY_CHAT_KEY = "workbench.panel.aichat.view.aichat.chatdata"
