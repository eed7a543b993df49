import platform

import pytest

from abcd_cli.engines import exact as gp
from abcd_cli.engines import memory


@pytest.mark.skipif(
    platform.system() != "Linux" or platform.libc_ver()[0] != "glibc", reason="glibc only"
)
def test_importing_the_engine_raises_glibc_thresholds_once():
    assert gp.FAILED_NLL > 0  # the import has run keep_temporaries_on_heap
    assert memory._done
    assert memory.keep_temporaries_on_heap() is True
