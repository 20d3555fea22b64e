"""Publishing: the only code that writes the site (``writer``), the private staging folders a
build keeps beside it (``staging``), and the atomic swap of a finished site into place (``swap``).
"""
