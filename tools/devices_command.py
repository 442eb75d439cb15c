"""`reconverge devices`: the Vulkan physical devices `run --target spirv --vk-device` can choose from.

    reconverge devices [--json]

One block per device: its index and name (what --vk-device takes), its type, driver, driver version and
Vulkan version, which of the features our modules may use it has (8/16/64-bit integers, 16/64-bit floats,
8/16-bit storage, 64-bit atomics, sub-group operations on 8/16/64-bit types, required full subgroups), its
subgroup size and the subgroup operations and stages it supports, and whether it offers maximal
reconvergence (VK_KHR_shader_maximal_reconvergence).
The default device (lavapipe when present, for reproducible results; else the first) is marked.
Why a separate module: the main CLI (tools/cli.py) only calls add_commands(subparsers).
"""
from __future__ import annotations

import sys

from reconverge.tools.commands import command_help

# the features a reader asks about, under short names -> the Vulkan feature flags that give them
FEATURES = {
    "int8": ("shaderInt8",), "int16": ("shaderInt16",), "int64": ("shaderInt64",),
    "float16": ("shaderFloat16",), "float64": ("shaderFloat64",),
    "storage8": ("storageBuffer8BitAccess",), "storage16": ("storageBuffer16BitAccess",),
    "int64-atomics": ("shaderBufferInt64Atomics",), "int64-shared-atomics": ("shaderSharedInt64Atomics",),
    "subgroup-extended-types": ("shaderSubgroupExtendedTypes",), "full-subgroups": ("computeFullSubgroups",),
}


def _describe(info, default: bool) -> dict:
    return {"index": info.index, "name": info.name, "type": info.type, "default": default,
            "driver": info.driver_name, "driver_info": info.driver_info, "driver_version": info.driver_version,
            "api_version": info.api_version, "usable": info.usable,
            "features": {short: all(info.features.get(f) for f in flags) for short, flags in FEATURES.items()},
            "subgroup_size": info.subgroup_size, "subgroup_operations": list(info.subgroup_operations),
            "subgroup_stages": list(info.subgroup_stages), "maximal_reconvergence": info.maximal_reconvergence}


def _text(d: dict) -> str:
    have = " ".join(k for k, v in d["features"].items() if v) or "none"
    lacks = " ".join(k for k, v in d["features"].items() if not v) or "none"
    head = f"{d['index']}: {d['name']} [{d['type']}]" + (" (default)" if d["default"] else "")
    if not d["usable"]:
        head += " (cannot run compute shaders here)"
    driver = " ".join(x for x in (d["driver"], d["driver_info"]) if x) or "unknown driver"
    return "\n".join([
        head,
        f"   driver: {driver} (driver version {d['driver_version']:#x}); Vulkan {d['api_version']}",
        f"   features: {have}; lacks: {lacks}",
        f"   subgroups: size {d['subgroup_size']}; operations: {' '.join(d['subgroup_operations']) or 'none'}; "
        f"stages: {' '.join(d['subgroup_stages']) or 'none'}",
        "   maximal reconvergence (VK_KHR_shader_maximal_reconvergence): "
        + ("yes" if d["maximal_reconvergence"] else "no"),
    ])


def _devices(args) -> None:
    import json

    from reconverge.backend.spirv.vulkan_run import default_device, devices
    found = devices()
    chosen = default_device().index
    described = [_describe(d, d.index == chosen) for d in found]
    if args.json:
        sys.stdout.write(json.dumps(described, indent=1) + "\n")
    else:
        sys.stdout.write("\n".join(_text(d) for d in described) + "\n")


def add_commands(sub) -> None:
    p = sub.add_parser("devices", help=command_help("devices"))
    p.add_argument("--json", action="store_true", help="print the list as JSON")
    p.set_defaults(func=_devices)
