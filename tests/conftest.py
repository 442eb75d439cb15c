"""Suite-wide fixtures. `vk_device`: a test that asks for it (or a module that marks itself with
`pytest.mark.usefixtures("vk_device")`) runs once per Vulkan device on the machine that can run compute
shaders, with $RECONVERGE_VK_DEVICE naming it, so every spirv launch inside it (in-process or through the
command line) uses that device. With one device (CI: lavapipe only) or none, the tests run once, unchanged."""
from __future__ import annotations

import pytest


def _vulkan_devices() -> list:
    try:
        from reconverge.backend.spirv.vulkan_run import VulkanError, devices
    except ImportError:
        return []
    try:
        return [d for d in devices() if d.usable]
    except VulkanError:
        return []


def pytest_generate_tests(metafunc):
    if "vk_device" not in metafunc.fixturenames:
        return
    found = _vulkan_devices()
    if len(found) > 1:
        metafunc.parametrize("vk_device", [str(d.index) for d in found], indirect=True,
                             ids=[f"vk{d.index}-{d.driver_name or d.type}" for d in found])


@pytest.fixture
def vk_device(request, monkeypatch):
    """The index of the Vulkan device this test runs on, as a string (None: the default device)."""
    from reconverge.backend.spirv.vulkan_run import DEVICE_ENV
    index = getattr(request, "param", None)
    if index is not None:
        monkeypatch.setenv(DEVICE_ENV, index)
    return index
