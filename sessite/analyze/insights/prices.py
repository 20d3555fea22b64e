"""Estimated costs: a small price table per model-name prefix, and what tokens cost under it.

An ESTIMATE (``DEFAULT_PRICES``, or the site's ``prices`` setting); a model not in the table has no cost, only tokens.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from sessite.model import Usage

# USD per million tokens: (input, output, cache read, cache write).
# An ESTIMATE from the vendors' public list prices as last checked (late 2025);
# it may be out of date, ignores batch/long-context/regional tiers, and is
# matched by model-name prefix. Override with the ``prices`` setting.
DEFAULT_PRICES: dict[str, tuple[float, float, float, float]] = {
    # Anthropic (cache write = 5-minute cache)
    "claude-opus-4": (15.0, 75.0, 1.5, 18.75),  # Opus 4 and 4.1
    "claude-opus-4-5": (5.0, 25.0, 0.5, 6.25),
    "claude-opus-4-6": (5.0, 25.0, 0.5, 6.25),
    "claude-sonnet-4": (3.0, 15.0, 0.3, 3.75),  # Sonnet 4 and 4.5
    "claude-3-7-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-3-5-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-haiku-4-5": (1.0, 5.0, 0.1, 1.25),
    "claude-3-5-haiku": (0.8, 4.0, 0.08, 1.0),
    # Cursor's spelling of the same models
    "claude-4-opus": (15.0, 75.0, 1.5, 18.75),
    "claude-4.1-opus": (15.0, 75.0, 1.5, 18.75),
    "claude-4.5-opus": (5.0, 25.0, 0.5, 6.25),
    "claude-4-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-4.5-sonnet": (3.0, 15.0, 0.3, 3.75),
    "claude-4.5-haiku": (1.0, 5.0, 0.1, 1.25),
    # OpenAI (cached input; no charge for cache writes)
    "gpt-5": (1.25, 10.0, 0.125, 0.0),  # gpt-5, gpt-5-codex
    "gpt-5-mini": (0.25, 2.0, 0.025, 0.0),
    "gpt-5-nano": (0.05, 0.4, 0.005, 0.0),
    "gpt-5.1": (1.25, 10.0, 0.125, 0.0),
    "gpt-4.1": (2.0, 8.0, 0.5, 0.0),
    "gpt-4.1-mini": (0.4, 1.6, 0.1, 0.0),
    "gpt-4o": (2.5, 10.0, 1.25, 0.0),
    "gpt-4o-mini": (0.15, 0.6, 0.075, 0.0),
    "o3": (2.0, 8.0, 0.5, 0.0),
    "o4-mini": (1.1, 4.4, 0.275, 0.0),
    # Google (prompts up to 200k tokens)
    "gemini-2.5-pro": (1.25, 10.0, 0.125, 0.0),
    "gemini-2.5-flash": (0.3, 2.5, 0.03, 0.0),
    "gemini-2.5-flash-lite": (0.1, 0.4, 0.01, 0.0),
}

Prices = Mapping[str, tuple[float, float, float, float]]
_PRICE_KEYS = ("input", "output", "cache_read", "cache_write")


def price_table(value: Mapping[str, Any] | None) -> dict[str, tuple[float, float, float, float]]:
    """The site's price table: the built-in estimate when unset, else the user's.

    The user's table maps a model-name prefix to ``{input, output, cache_read,
    cache_write}`` in USD per million tokens (missing keys count 0); an empty
    table turns costs off. Raises ValueError on a malformed table.
    """
    if value is None:
        return dict(DEFAULT_PRICES)
    if not isinstance(value, Mapping):
        raise ValueError("prices: expected a table of model prefix -> {input, output, cache_read, cache_write}")
    table: dict[str, tuple[float, float, float, float]] = {}
    for prefix, entry in value.items():
        if isinstance(entry, (list, tuple)) and len(entry) == 4:
            numbers = tuple(entry)
        elif isinstance(entry, Mapping):
            unknown = set(entry) - set(_PRICE_KEYS)
            if unknown:
                raise ValueError(
                    f"prices.{prefix}: unknown key(s) {', '.join(sorted(unknown))}; use {', '.join(_PRICE_KEYS)}"
                )
            numbers = tuple(entry.get(k, 0) for k in _PRICE_KEYS)
        else:
            raise ValueError(f"prices.{prefix}: expected {{input, output, cache_read, cache_write}}")
        try:
            pin, pout, pread, pwrite = (float(n) for n in numbers)
        except (TypeError, ValueError):
            raise ValueError(f"prices.{prefix}: prices must be numbers (USD per million tokens)") from None
        floats = (pin, pout, pread, pwrite)
        if any(n < 0 or n != n for n in floats):
            raise ValueError(f"prices.{prefix}: prices must be zero or more")
        table[str(prefix).lower()] = floats
    return table


_BOUNDARY = "-_:@/ "  # after a prefix; "." is not one, so gpt-5 never prices gpt-5.3


def model_price(model: str | None, prices: Prices) -> tuple[float, float, float, float] | None:
    """The longest table prefix that matches the model name at a word boundary."""
    if not model or not prices:
        return None
    name = model.strip().lower()
    name = name.rsplit("/", 1)[-1]  # provider/model
    best: str | None = None
    for prefix in prices:
        at_boundary = name.startswith(prefix) and (len(name) == len(prefix) or name[len(prefix)] in _BOUNDARY)
        if at_boundary and (best is None or len(prefix) > len(best)):
            best = prefix
    return prices[best] if best is not None else None


def usage_cost(usage: Usage, price: tuple[float, float, float, float]) -> float:
    """USD for these tokens at one model's price."""
    pin, pout, pread, pwrite = price
    return (
        usage.input_tokens * pin
        + usage.output_tokens * pout
        + usage.cache_read_tokens * pread
        + usage.cache_write_tokens * pwrite
    ) / 1_000_000


def estimate_cost(by_model: Iterable[tuple[str, Usage]], prices: Prices) -> tuple[float | None, bool]:
    """(estimated USD, partial): None when no model is priced; partial when some tokens are not."""
    cost: float | None = None
    partial = False
    for model, usage in by_model:
        if not usage:
            continue
        price = model_price(model, prices)
        if price is None:
            partial = True
            continue
        cost = (cost or 0.0) + usage_cost(usage, price)
    return cost, (partial and cost is not None)
