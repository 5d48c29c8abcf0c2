"""Which option names mysqld certainly does not have (so it stops on them unless they are ``loose-``).

The catalogue (:mod:`.mysqld_catalog`) lists the options this project reads, not all of mysqld's; a name
outside it is judged only where the sources settle it, otherwise it gets no verdict:

* every name mysqld registers is lower case ASCII letters, digits, ``_``/``-`` (sys_vars.cc, my_long_options,
  plugin names lowered by ``my_casedn_str`` in sql_plugin.cc ``construct_options``) and my_getopt compares
  bytes exactly, so a capital, a blank or any other byte makes a name no option has (dotted struct and
  component names, ``cache.key_buffer_size``, are not judged);
* no abbreviations since MySQL 5.7 (WL#6978; my_getopt.cc ``findopt`` wants ``!opt->name[length]``): a
  strict prefix of a catalogued name is no option unless it is one in its own right (``PREFIX_OPTIONS``);
* a plugin's variables exist only while it is loaded, only they have a ``plugin-`` alias (sql_plugin.cc
  ``construct_options``), and Percona Server has no ``wsrep_*`` options;
* the semi-sync plugins register exactly the variables catalogued (``COMPLETE_FAMILIES``);
* no option's own name begins ``loose_``, ``enable_``, ``disable_`` or ``maximum_`` (``skip_`` ones do:
  ``skip_name_resolve``), so for such a name only what follows the prefix can be an option.
"""

from __future__ import annotations

import re

from .mysqld_catalog import BY_NAME, COMPLETE_FAMILIES, GROUP_REPLICATION, PLUGIN_LIBRARIES, PREFIX_OPTIONS

_OPTION_NAME = re.compile(r"[a-z0-9_]+")
_PLUGINS = (GROUP_REPLICATION, *(name for name in PLUGIN_LIBRARIES.values() if name != GROUP_REPLICATION))
_LIBRARY = {name: library for library, name in PLUGIN_LIBRARIES.items()}


def _plugin_family(key: str) -> str | None:
    for plugin in _PLUGINS:
        if key == plugin or key.startswith(f"{plugin}_"):
            return plugin
    return None


def unknown_reason(name: str, operator: str | None, plugins: frozenset[str]) -> str | None:
    """Why no option of this server is spelled ``name``, or None when that cannot be told."""
    key = name.replace("-", "_")
    if not key:
        return "an empty option name"
    if "." in key:
        return None
    if not _OPTION_NAME.fullmatch(key):
        return "option names are lower case ASCII and compared byte for byte, so this spelling names none"
    if key.startswith(("loose_", "enable_", "disable_", "maximum_")):
        return "no option's own name starts with a special prefix (only skip_ ones exist), so the name after it decides"
    bare = key[len("plugin_") :] if key.startswith("plugin_") else key
    family = _plugin_family(bare)
    if family is not None and family not in plugins:
        return (
            f"it belongs to the {family} plugin, which is not loaded ({_LIBRARY.get(family, family)} is not in "
            "plugin_load/plugin_load_add)"
        )
    if operator == "ps" and bare.startswith("wsrep_"):
        return "Percona Server has no wsrep_* options (they are PXC's)"
    option = BY_NAME.get(bare)
    if option is not None and bare != key and option.plugin is None:
        return f"{option.name} is the server's own variable, and only plugin variables answer to plugin-"
    if option is not None and operator is not None and operator not in option.operators:
        return f"{option.name} exists only in {'PXC' if 'pxc' in option.operators else 'Percona Server'}"
    if bare.startswith(COMPLETE_FAMILIES) and bare not in BY_NAME:
        return "it is none of the variables its plugin registers"
    if key not in BY_NAME and key not in PREFIX_OPTIONS:
        longer = sorted(known for known in BY_NAME if known.startswith(key) and known != key)
        if longer:
            return f"an abbreviation of {longer[0]}, and mysqld takes no abbreviations"
    return None


__all__ = ["unknown_reason"]
