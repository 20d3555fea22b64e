"""Full-text search: a lunr.js-compatible term index, split into chunks loaded per query."""
