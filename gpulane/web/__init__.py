"""gpulane's local web app and static site: pages over the same Python API as the command line.

This package sits above gpulane.queries and gpulane.cli's renderers; nothing below imports it.
"""
