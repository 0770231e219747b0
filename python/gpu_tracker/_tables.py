# SPDX-License-Identifier: MIT
"""Tables of results: pandas objects where pandas is installed (as the Python
package returns), plain dicts otherwise.  pandas is imported on first use
only, so importing gpu_tracker stays cheap."""
_pandas = None


def pandas():
    """The pandas module, or None when it is not installed."""
    global _pandas
    if _pandas is None:
        try:
            import pandas as pd
        except ImportError:
            pd = False
        _pandas = pd
    return _pandas or None


def frame(rows: dict):
    """{row: {column: value}} -> DataFrame (rows in order), or the dict."""
    pd = pandas()
    if pd is None:
        return rows
    return pd.DataFrame.from_dict(rows, orient='index')


def series(values: dict, name=None, dtype=None):
    """{label: value} -> Series (labels in order), or the dict."""
    pd = pandas()
    if pd is None:
        return values
    return pd.Series(values, name=name, dtype=dtype)
