import os
import tempfile

from hypothesis import HealthCheck, settings

# `make test` is reproducible (same examples every run, so CI cannot fail by
# luck of the draw); the `slow` profile explores with fresh random examples.
settings.register_profile("default", deadline=None, max_examples=60, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("slow", deadline=None, max_examples=1000,
                          suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Device transactions journal and lock in a state directory: in tests never the user's own.
os.environ["PERMNET_STATE_DIR"] = tempfile.mkdtemp(prefix="permnet-test-state-")


def pytest_addoption(parser):
    parser.addoption("--hil-url", default=None,
                     help="run tests/hil against a HIL board at this URL (e.g. /dev/ttyUSB0) as well as the model")
