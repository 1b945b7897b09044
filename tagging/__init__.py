"""Contextual tagging: metadata that rides on values while the heap stays plain.

`enabletagging(ctx, f)` gives a context a fresh tag; `tag(value, ctx, meta)`
attaches metadata; inside `overdub(ctx, f, ...)` the metadata follows the
value through attributes, items, containers, globals, closure cells and
construction, while the heap and all outside code only see plain values.
"""

from contexts.layer import NoMetaData
from tagging._tag import (Tagged, enabletagging, hasmetadata, hastagging, istagged,
                          metadata, metadatatype, tag, untag)

__all__ = ["enabletagging", "hastagging", "tag", "untag", "metadata", "hasmetadata",
           "istagged", "metadatatype", "NoMetaData", "Tagged"]
