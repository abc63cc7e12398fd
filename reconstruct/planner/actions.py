"""The rite's verbs performed: one handler per verb of the vocabulary (``HANDLERS``)."""
from __future__ import annotations

import math


from ..text.placement import heading_of
from .occupancy import GAP
from .bodies import Body
from .walkable import COURT, HALL, STAIR





class Actions:
    """The rite's verbs performed: one handler per verb of the vocabulary (``HANDLERS``)."""

    # verb → handler; every duration comes from :class:`~.pace.Pace`
    HANDLERS = {
        "go": "_go", "enter": "_go", "exit": "_go", "step_back": "_go", "step_forward": "_go",
        "formation": "_formation", "ascend": "_ascend", "descend": "_descend", "face": "_face", "turn": "_face",
        "kneel": "_kneel", "rise": "_rise", "stand": "_stand", "bow": "_bow", "kneel_bow": "_kneel_bow",
        "sidestep": "_sidestep", "bare": "_dress", "cover": "_dress", "gear_on": "_dress", "gear_off": "_dress",
        "hold_bow": "_hold_bow", "take": "_take", "receive": "_take", "put": "_put", "give": "_give",
        "shoot": "_shoot", "tuck": "_tuck", "tuck_arrows": "_tuck_arrows", "wash": "_timed", "pour": "_timed",
        "drink": "_timed", "offer": "_timed", "count": "_timed", "perform": "_timed", "reply": "_timed",
        "announce": "_timed", "music": "_music_verb", "wait": "_timed", "gesture": "_gesture",
        "music_end": "_music_end_verb", "play": "_play", "hold_arrow": "_hold_arrow",
        "take_arrows": "_take_arrows", "gather_arrows": "_gather_arrows", "lay_arrows": "_lay_arrows",
        "count_arrows": "_count_arrows", "count_tallies": "_count_tallies", "take_winning": "_take_winning",
        "report_score": "_report_score", "reset_tallies": "_reset_tallies", "lay_spare": "_lay_spare",
        "collect_tallies": "_collect_tallies", "store_tallies": "_store_tallies", "put_arrows": "_put_arrows",
        "give_arrows": "_give_arrows", "lead": "_lead", "release": "_release",
    }
    # what the hands do in the timed acts (plan-format "What hands do")
    GESTURE_OF = {"drink": "drink", "offer": "sacrifice", "wash": "wash", "pour": "pour", "count": "count_tallies"}
    # verbs after which a stated facing (face=…) is taken
    FACE_AFTER = frozenset(("go", "formation", "ascend", "descend", "enter", "exit", "step_back", "step_forward",
                            "take", "put", "give", "receive", "kneel", "rise", "stand", "kneel_bow", "wash", "pour",
                            "drink", "offer", "count", "perform", "wait"))

    def act(self, b: Body, a) -> None:
        """Perform one action of the rite script."""
        handler = self.HANDLERS.get(a.verb)
        if handler is None:
            self.fail(f"verb {a.verb} cannot be planned")
        getattr(self, handler)(b, a)
        if a.heading and a.verb in self.FACE_AFTER:
            self.moves.face(b, self.places.heading_toward(b, a.heading))
            self.stated[b.id] = (self.current.id if self.current else "", b.heading)

    # -- walking verbs
    def _go(self, b: Body, a) -> None:
        """go / enter / exit / step_back / step_forward: to a place, or a short step without one."""
        if a.place:
            self._go_to(b, a)
        elif a.verb in ("go", "step_forward"):
            self.moves.nudge(b, b.heading, self.pace.step)
        elif a.verb == "step_back":
            self.moves.nudge(b, b.heading + 180, self.pace.step)
        elif a.verb == "exit":
            gate = self.reading.landmarks["门"].position
            self.walking.walk(b, (gate[0], gate[1] + 0.6, COURT), "出 by the 门")
            x, y = self.occupancy.free_spot(b, gate[0], gate[1] - 1.5, COURT, b.t)
            self.walking.walk(b, (x, y, COURT), "outside the 门")
        else:                                   # enter
            gate = self.reading.landmarks["门"].position
            self.walking.walk(b, (gate[0], gate[1] + 1.5, COURT), "入 by the 门")

    def _go_to(self, b: Body, a) -> None:
        v = a.verb
        x, y, level, fh = self.places.resolve(a.place, b.id)
        via, by_way = self._text_via(b, a, level)
        if v == "exit" and a.place in ("门", "門"):
            y -= 1.5
        # one's slot when the place is a formation one belongs to (反位, or 門外 as the guests leave)
        slot = self.places.formation_slot(b.id, a.place) if v in ("go", "exit") else None
        if slot is None and v == "go" and a.rank:
            slot = self.places.adhoc_slot(b, a.place, a.rank, a.heading)      # 北上 / 東上: one place each, in rank order
        if slot is not None:
            x, y, level, fh = slot
        x, y = self.occupancy.free_spot(b, x, y, level, b.t)
        if v == "exit" and slot is not None:
            # out of the gate, down the lane a metre in front of the file, and into one's place from in
            # front of it (not past the shoulders of those already standing: routed through them, a
            # walk cost as much as the file was long)
            h = math.radians(fh)
            fx, fy = x + 1.0 * math.sin(h), y + 1.0 * math.cos(h)
            lx, ly = fx, self.reading.gate[1] - 1.5
            if self.ground.is_free(level, fx, fy) and self.ground.is_free(level, lx, ly):
                via = [*via, (lx, ly, level), (fx, fy, level)]
        why = f"{v} to {a.place}" + by_way
        if v == "exit":
            why += " (出: through the 门, the only way out)"
        if a.stair:
            why += f" by the {a.stair} (stated)"
        self.walking.walk(b, (x, y, level), why, a.stair, via=via, behind=self.places.ahead(a.place) if slot else None,
                  aside=v == "go" and slot is None)
        if slot is not None:
            self.places.set_out(b, a.place)
            if v == "exit" and not a.heading:
                self.moves.face(b, fh)         # in his place in the file outside, facing as the file faces

    def _formation(self, b: Body, a) -> None:
        slot = self.places.formation_slot(b.id, a.place, a.rank) or self.places.adhoc_slot(b, a.place, a.rank, a.heading)
        x, y, level, fh = slot
        x, y = self.occupancy.free_spot(b, x, y, level, b.t)
        via, by_way = self._text_via(b, a, level)
        self.walking.walk(b, (x, y, level), f"to his slot in {a.place} (rank order)" + by_way, a.stair, via=via,
                  behind=self.places.ahead(a.place))
        self.places.set_out(b, a.place)
        self.moves.face(b, fh)

    def _ascend(self, b: Body, a) -> None:
        st = self.reading.stairs.get(a.stair or "") or self.routes.conventional_stair(b)
        if a.top_step:
            self.walking.walk(b, (st.x + self.ground.lane(st, True), st.step_y(st.steps), HALL),
                      f"up the {st.id} to the top step (盡階不升堂)", st.id, top_step=True)
            self.moves.face(b, 0.0)
            return
        # one pace onto the hall from the head of the lane going up, clear of the stair's head
        hx, hy = self.ground.head(st, self.ground.lane(st, True))
        hx, hy = self.occupancy.free_spot(b, hx, hy + GAP + 0.05, HALL, b.t)
        after = self.pairs.partner_third_step(b, st)
        why = f"升 by the {st.id}"
        if after is not None:
            why += f", a step behind {self.pairs.partner_of(b.id)} (上射先升三等，下射從之中等)"
        self.walking.walk(b, (hx, hy, HALL), why, st.id, first_step_at=after)

    def _descend(self, b: Body, a) -> None:
        st = self.reading.stairs.get(a.stair or "") or self.routes.conventional_stair(b)
        fx, fy = self.ground.foot(st)
        fx, fy = self.occupancy.free_spot(b, fx, fy, COURT, b.t)
        after = self.pairs.partner_third_step(b, st, down=True)
        why = f"降 by the {st.id}"
        if after is not None:
            why += f", a step behind {self.pairs.partner_of(b.id)} (上射降三等，下射從之中等)"
        self.walking.walk(b, (fx, fy, COURT), why, st.id, first_step_at=after)

    def _sidestep(self, b: Body, a) -> None:
        self.moves.nudge(b, heading_of(a.heading) if a.heading else b.heading + 90, self.pace.step)

    # -- the body
    def _face(self, b: Body, a) -> None:
        if a.heading:
            self.moves.face(b, self.places.heading_toward(b, a.heading))
            self.stated[b.id] = (self.current.id if self.current else "", b.heading)

    def _kneel(self, b: Body, a) -> None:
        self.moves.posture(b, "kneel", self.pace.kneel)

    def _rise(self, b: Body, a) -> None:
        self.moves.posture(b, "stand", self.pace.rise)

    def _stand(self, b: Body, a) -> None:
        self.moves.posture(b, "stand", self.pace.settle)

    DRESS = {"bare": ("bare_left_arm", True), "cover": ("bare_left_arm", False),
             "gear_on": ("gear", True), "gear_off": ("gear", False)}

    def _dress(self, b: Body, a) -> None:
        """袒 / 襲 / 決遂 / 說決拾."""
        key, value = self.DRESS[a.verb]
        b.gesture(b.t, b.t + self.pace.dress, a.verb, None)
        self.moves.hold(b, self.pace.dress)
        b.set_state(b.t, **{key: value})

    def _hold_bow(self, b: Body, a) -> None:
        """執張弓 / 執弛弓: the bow held strung, or unstrung across the palms (stringing or unstringing it if it
        was the other way)."""
        was, now = b.state.get("bow"), a.text or "strung"
        if was is not None and was != now:
            b.gesture(b.t, b.t + self.pace.hold_bow, "string_bow" if now == "strung" else "unstring_bow", None)
        self.moves.hold(b, self.pace.hold_bow)
        b.set_state(b.t, bow=a.text or "strung")

    def _tuck(self, b: Body, a) -> None:
        """搢扑: stick it in the belt, taking it up first if it lies where he left it."""
        if a.prop and a.prop in self.props and self.props[a.prop].carrier != b.id:
            self._take(b, a)
            self.moves.hold(b, self.pace.tuck)
        else:
            self._timed(b, a)

    def _timed(self, b: Body, a) -> None:
        """A timed act in place (wash, pour, drink, offer, count, perform, reply, announce, music, wait):
        at the 洗 or the 尊 where it is done there, facing whom one speaks to."""
        dur = a.duration if a.duration is not None else self.pace.duration_of(a.verb, a.text)
        if a.verb == "wash":
            self._near_fixture(b, "洗", 1.2)
        if a.verb == "pour" and b.level == HALL:
            self._near_fixture(b, "尊", 1.0)
        if a.verb in ("announce", "reply") and a.other and self.stated.get(b.id, ("",))[0] != (
                self.current.id if self.current else ""):
            self.moves.face(b, self.places.heading_toward(b, a.other))   # unless the text gave his facing
        if a.verb in self.GESTURE_OF:
            b.gesture(b.t, b.t + dur, self.GESTURE_OF[a.verb], a.prop)
        self.moves.hold(b, dur)

    def _gesture(self, b: Body, a) -> None:
        """A gesture of the vocabulary (``text`` = its kind) with a prop or nobody, for its duration."""
        dur = a.duration if a.duration is not None else self.pace.gesture
        b.gesture(b.t, b.t + dur, a.text, a.prop or a.other)
        self.moves.hold(b, dur)

    def _hold_arrow(self, b: Body, a) -> None:
        """挟一个: one arrow held across the bow (taken up first where it lies)."""
        if a.prop and self.props[a.prop].carrier != b.id:
            self._take(b, a)
        b.gesture(b.t, b.t + self.pace.hold_arrow, "hold_arrow", a.prop)
        self.moves.hold(b, self.pace.hold_arrow)

    def _text_via(self, b: Body, a, level: str) -> tuple[list, str]:
        """The via points the text names for an action (由X之南 …), and the words that explain them."""
        via = [p for p in (self.places.via_point(name, b, level) for name in a.via) if p is not None]
        return via, (f" by way of {', '.join(a.via)} (the text's via)" if a.via else "")

    def _near_fixture(self, b: Body, name: str, within: float) -> None:
        lm = self.reading.landmarks.get(name)
        if lm is None:
            return
        level = HALL if lm.position[2] > self.reading.hall_height / 2 else COURT
        if (b.level if b.level != STAIR else HALL) != level or math.hypot(lm.position[0] - b.x, lm.position[1] - b.y) > within + 0.8:
            self.walking.approach(b, lm.position[0], lm.position[1], level, within + 0.3, f"to the {name}")

    # -- things handled, bows, the hand (the parts that do them)
    def _take(self, b: Body, a) -> None:
        self.handling.take(b, a.prop)

    def _put(self, b: Body, a) -> None:
        self.handling.put(b, a.prop, a.place)

    def _give(self, b: Body, a) -> None:
        self.handling.give(b, a.other, a.prop)

    def _bow(self, b: Body, a) -> None:
        self.courtesy.bow(b, a.other, a.count)

    def _kneel_bow(self, b: Body, a) -> None:
        self.courtesy.kneel_bow(b, a.other, a.count)

    def _lead(self, b: Body, a) -> None:
        self.courtesy.lead(b, a.other)

    def _release(self, b: Body, a) -> None:
        self.courtesy.release(b, a.other)
