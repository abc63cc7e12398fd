"""The parameters of the archery that the text leaves open: how often each archer hits, how often a loose
falls off the drum's beat, the seed of the deterministic outcome, the length of a 节 of the 驺虞, the
speed of an arrow.  Declared in the rite script under ``archery:`` (docs/rite-script.md)."""
from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class ArcheryParams(BaseModel):
    """The archery model's parameters (all optional; the defaults are the shipped script's)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int = Field(1, ge=0, le=2**31)
    hit_rate: float = Field(0.45, ge=0.0, le=1.0, allow_inf_nan=False)        # every archer's, unless named
    hit_rates: dict[str, float] = {}           # person id (or 三耦, 众宾 …) → his chance of hitting the 正
    off_beat: float = Field(0.08, ge=0.0, le=1.0, allow_inf_nan=False)       # a loose off the drum's 节
    beat_s: float = Field(8.0, gt=1.0, le=60.0, allow_inf_nan=False)         # one 节 of the 驺虞 (间若一)
    arrow_speed: float = Field(55.0, gt=10.0, le=150.0, allow_inf_nan=False)  # m/s as the arrow leaves
    tallies: int = Field(80, ge=8, le=400)                                   # 箭筹八十 (記)

    def rate(self, who: str, groups: dict[str, list[str]]) -> float:
        """The chance that an arrow of ``who`` hits: his own rate, else his group's, else the default."""
        if who in self.hit_rates:
            return self.hit_rates[who]
        for name, members in groups.items():
            if name in self.hit_rates and who in members:
                return self.hit_rates[name]
        return self.hit_rate
