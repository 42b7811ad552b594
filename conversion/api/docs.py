"""A self-hosted API reference page rendered on the server from the OpenAPI schema: no CDN, no
script, readable with a screen reader. The machine-readable schema is at /api/v1/schema."""

from __future__ import annotations

from functools import lru_cache

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_GET
from drf_spectacular.generators import SchemaGenerator

_METHODS = ("get", "post", "put", "patch", "delete")


@lru_cache(maxsize=1)
def _schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def _ref_name(ref: str) -> str:
    return ref.rsplit("/", 1)[-1]


def _kind(prop: dict, components: dict) -> str:
    """A property's type as a reader wants it: an enum's values, a named shape's name (a
    property with a description refers to its shape through allOf)."""
    ref = prop.get("$ref") or next((p["$ref"] for p in prop.get("allOf", []) if "$ref" in p), "")
    if not ref:
        return prop.get("type", "")
    shape = components.get(_ref_name(ref), {})
    if "enum" in shape:
        return "one of: " + ", ".join(str(value) for value in shape["enum"])
    return _ref_name(ref)


def _fields(schema: dict, components: dict) -> list[dict]:
    if "$ref" in schema:
        schema = components.get(_ref_name(schema["$ref"]), {})
    required = set(schema.get("required", []))
    out = []
    for name, prop in (schema.get("properties") or {}).items():
        kind = _kind(prop, components)
        if kind == "array":
            items = prop.get("items", {})
            kind = f"array of {items.get('type') or _ref_name(items.get('$ref', ''))}"
        if prop.get("format") == "binary":
            kind = "file"
        out.append(
            {
                "name": name,
                "type": kind or "object",
                "required": name in required,
                "description": prop.get("description", ""),
                "read_only": prop.get("readOnly", False),
            }
        )
    return out


def operations() -> list[dict]:
    schema = _schema()
    components = schema.get("components", {}).get("schemas", {})
    ops = []
    for path, item in schema.get("paths", {}).items():
        for method in _METHODS:
            op = item.get(method)
            if op is None:
                continue
            body = op.get("requestBody", {}).get("content", {})
            media, content = next(iter(body.items()), (None, {}))
            responses = []
            for code, resp in op.get("responses", {}).items():
                ctype = next(iter(resp.get("content", {}) or {}), "")
                responses.append(
                    {"code": code, "description": resp.get("description", ""), "type": ctype}
                )
            ops.append(
                {
                    "id": f"{method}-{path}".replace("/", "-").replace("{", "").replace("}", ""),
                    "method": method.upper(),
                    "path": path,
                    "summary": op.get("summary", ""),
                    "description": op.get("description", ""),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "description": p.get("description", ""),
                        }
                        for p in op.get("parameters", [])
                    ],
                    "media": media,
                    "fields": _fields(content.get("schema", {}), components) if media else [],
                    "responses": responses,
                }
            )
    return ops


@require_GET
def api_docs(request: HttpRequest) -> HttpResponse:
    schema = _schema()
    return render(
        request,
        "conversion/api_docs.html",
        {"info": schema.get("info", {}), "operations": operations()},
    )
