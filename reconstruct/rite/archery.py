"""The parameters of the archery that the text leaves open (how often each archer hits, how often a loose
falls off the drum's beat, the seed of the deterministic outcome, the length of a 节 of the 驺虞, the
speed of an arrow), declared in the rite script under ``archery:`` (docs/rite-script.md).  The type lives
with the rite's other types in :mod:`reconstruct.model.rite`."""
from ..model.rite import ArcheryParams

__all__ = ["ArcheryParams"]
