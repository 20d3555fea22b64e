"""Aider's words: the lines it writes into the transcript, and the reasons a page lists for what it leaves out.

Aider writes plain Markdown, so every fact is a line of a known shape; they are all here,
so that a new aider version's wording is one line to change.
"""

from __future__ import annotations

import re

NAME = "aider"
AGENT = "aider"
CHAT_SUFFIX = ".aider.chat.history.md"  # the file aider writes in the project, and its companions'
INPUT_SUFFIX = ".aider.input.history"
LLM_SUFFIX = ".aider.llm.history"

# ``# aider chat started at 2025-05-04 17:02:36``: each run of aider appends one.
RUN_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)\s*$")

# What aider says between turns (the text after ``> ``).
TOKENS = re.compile(
    r"^Tokens: (?P<sent>[\d.]+k?) sent(?:, (?P<write>[\d.]+k?) cache write)?(?:, (?P<hit>[\d.]+k?) cache hit)?"
    r", (?P<received>[\d.]+k?) received\.(?: Cost: \$(?P<cost>[\d.]+) message, \$(?P<total>[\d.]+) session\.)?"
)
APPLIED = re.compile(r"^Applied edit to (.+?)\s*$")
SKIPPED_EDIT = re.compile(r"^Skipping edits to (.+?)\s*$")
COMMIT = re.compile(r"^Commit ([0-9a-f]{7,40}) (.*)$")
RUNNING = re.compile(r"^Running (.+)$")
ADDED_OUTPUT = re.compile(r"^Added \d+ lines? of output to the chat\.$")
MAIN_MODEL = re.compile(r"^(?:Main model|Model): (\S+)(?: with (\S+) edit format)?")
VERSION = re.compile(r"^Aider v(\S+)")
FAILED_MATCH = re.compile(r"failed to (?:exactly )?match lines in (.+?)\s*$", re.M)

# Commands that hand their words on to the model: aider repeats them as a prompt of their own.
PROMPT_COMMANDS = ("/code", "/ask", "/architect", "/context", "/help", "/chat-mode")
SHELL_COMMANDS = ("/run", "/test", "!")

# Reasoning the model wrapped in tags (``<think>`` of Qwen and DeepSeek, aider's own tag).
THINK = re.compile(r"<(think|thinking|reasoning|thinking-content-[0-9a-f]{8,})>\s*(.*?)\s*</\1>", re.S)

# Reasons for what is not shown (the session page lists them with their counts).
RUN_START = "run header (the session's start time)"
ECHO = "prompt aider repeats when a command hands it to the model (shown as the command)"
TOKEN_LINE = "token and cost report (shown as the reply's usage)"
EMPTY_OUTPUT = "empty line of aider output"
INPUT_MERGED = "typed input (its time is the prompt's)"
INPUT_ANSWER = "answer typed to one of aider's questions (shown in its note)"
INPUT_RUN = "shell command aider ran at the user's yes (shown as its call)"
INPUT_ELSEWHERE = "typed input the chat transcript does not hold (another run's, or an answer to a question)"
PROMPT_SENT = "prompt aider sent to the model (its instructions, the files and the chat so far)"
REPLY_MERGED = "model reply (its text is the transcript's; its time is the reply's)"
REPLY_EMPTY = "empty model reply (a failed or rate-limited request)"
REPLY_ELSEWHERE = "model reply the chat transcript does not hold (a commit message or a summary aider asked for)"
