"""The soundtrack (render/sound.py): the drum at the plan's beats, the strings, the length to the sample."""
import wave

import numpy as np

from reconstruct.render import sound as S


def test_soundtrack_beats_and_length(plan, tmp_path):
    beats = plan.music.beats
    cues = S.cues_of(plan, lambda x: x - beats[0] + 1.0, beats[0] - 1.0, beats[0] + 40.0)
    drums = [c for c in cues if c.kind == "drum"]
    assert len(drums) == sum(beats[0] - 1.0 <= b <= beats[0] + 40.0 for b in beats)
    assert any(c.kind == "loose" for c in cues)
    out = S.write_soundtrack(tmp_path / "s.wav", 21.0, cues)
    with wave.open(str(out)) as wf:
        assert (wf.getnchannels(), wf.getframerate()) == (2, S.RATE) and wf.getnframes() == 21 * S.RATE
        x = np.frombuffer(wf.readframes(wf.getnframes()), "<i2").reshape(-1, 2).astype(float)
    at = int(1.0 * S.RATE)
    assert np.abs(x[at:at + 4800]).max() > 20 * np.abs(x[at - 9600:at - 4800]).max()   # the drum over the quiet
