import pytest

from kbgym.worlds.people import UniverseConfig, generate


@pytest.fixture(scope="session")
def small_universe():
    return generate(UniverseConfig(n_people=60, n_cities=8, sizes=(40, 30, 20),
                                   eval_sizes=(10, 6)))
