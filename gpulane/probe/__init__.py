"""Read the local GPU software stack (probe) as data.

``readers`` turn recorded tool output into dataclasses (pure functions),
``runner`` calls the tools with timeouts, ``config`` resolves what was found
through the knowledge base's names into a configuration to explain.
"""

from gpulane.probe.config import Configuration, Pin, configuration_from
from gpulane.probe.runner import Found, ToolRun, probe_machine, run_tool

__all__ = ["Configuration", "Pin", "configuration_from", "Found", "ToolRun", "probe_machine", "run_tool"]
