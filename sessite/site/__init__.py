"""The site: the view model, every URL, markup, templates and one module per output."""
