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
            self.moves.face(b, self.heading_toward(b, a.heading))
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
        x, y, level, fh = self.resolve(a.place, b.id)
        via, by_way = self._text_via(b, a, level)
        if v == "exit" and a.place in ("门", "門"):
            y -= 1.5
        # one's slot when the place is a formation one belongs to (反位, or 門外 as the guests leave)
        slot = self._formation_slot(b.id, a.place) if v in ("go", "exit") else None
        if slot is None and v == "go" and a.rank:
            slot = self._adhoc_slot(b, a)      # 北上 / 東上: one place each, in rank order
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
        self.walking.walk(b, (x, y, level), why, a.stair, via=via, behind=self._ahead(a.place) if slot else None,
                  aside=v == "go" and slot is None)
        if slot is not None:
            self._set_out(b, a.place)
            if v == "exit" and not a.heading:
                self.moves.face(b, fh)         # in his place in the file outside, facing as the file faces

    def _formation(self, b: Body, a) -> None:
        slot = self._formation_slot(b.id, a.place, a.rank) or self._adhoc_slot(b, a)
        x, y, level, fh = slot
        x, y = self.occupancy.free_spot(b, x, y, level, b.t)
        via, by_way = self._text_via(b, a, level)
        self.walking.walk(b, (x, y, level), f"to his slot in {a.place} (rank order)" + by_way, a.stair, via=via,
                  behind=self._ahead(a.place))
        self._set_out(b, a.place)
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
            self.moves.face(b, self.heading_toward(b, a.heading))
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
            self.moves.face(b, self.heading_toward(b, a.other))   # unless the text gave his facing
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
        via = [p for p in (self._via_point(name, b, level) for name in a.via) if p is not None]
        return via, (f" by way of {', '.join(a.via)} (the text's via)" if a.via else "")

    def _near_fixture(self, b: Body, name: str, within: float) -> None:
        lm = self.reading.landmarks.get(name)
        if lm is None:
            return
        level = HALL if lm.position[2] > self.reading.hall_height / 2 else COURT
        if (b.level if b.level != STAIR else HALL) != level or math.hypot(lm.position[0] - b.x, lm.position[1] - b.y) > within + 0.8:
            self.walking.approach(b, lm.position[0], lm.position[1], level, within + 0.3, f"to the {name}")

    def _take(self, b: Body, a) -> None:
        P = self.pace
        if a.prop is None:
            self.moves.hold(b, P.handle)
            return
        pr = self.props.get(a.prop)
        if pr is None:
            self.fail(f"unknown prop {a.prop}")
        if pr.carrier == b.id:
            self.moves.hold(b, 0.3)
            return
        if pr.carrier is not None:
            giver = self.bodies[pr.carrier]
            self._meet(b, giver, f"to receive the {a.prop} from {pr.carrier}")
            b.gesture(b.t - P.hand_over, b.t, "receive", a.prop)
            giver.gesture(b.t - P.hand_over, b.t, "hand_over", b.id)
            giver.hold_until(b.t)
            self.hold_things(giver, b.t, remove=a.prop)
        else:
            level = HALL if pr.z > self.reading.hall_height / 2 else COURT
            self._reach(b, pr.x, pr.y, level, 0.6, f"to take the {a.prop}")
            b.gesture(b.t, b.t + P.handle, "take", a.prop)
            self.moves.hold(b, P.handle)
        self.carry(a.prop, b.id, b.t)
        self.hold_things(b, b.t, add=a.prop)

    # how far one kneeling reaches without getting up (leaning forward from the heels)
    KNEEL_REACH = 1.25
    # how far apart two stand to hand something over: face to face, both holding a thing before the
    # chest, their outlines just clear; the arms reach halfway across
    HAND_REACH = 0.8

    def _reach(self, b: Body, x: float, y: float, level: str, within: float, why: str) -> None:
        """Come within reach of a spot: kneeling (坐取, 坐奠, 不興), one leans to it without rising when it
        lies within :attr:`KNEEL_REACH`; otherwise one walks up to it."""
        blevel = b.level if b.level != STAIR else HALL
        if b.posture == "kneel" and blevel == level and math.hypot(x - b.x, y - b.y) <= self.KNEEL_REACH:
            return
        self.walking.approach(b, x, y, level, within, why)

    def hold_things(self, b: Body, t: float, add: str | None = None, remove: str | None = None) -> None:
        """What one holds from time t: ``add`` taken into the hand, ``remove`` set down or handed over."""
        held = set(b.state.get("holding", []))
        if add:
            held.add(add)
        if remove:
            held.discard(remove)
        b.set_state(t, holding=sorted(held))

    def _put(self, b: Body, a) -> None:
        P = self.pace
        if a.prop is None:
            self.moves.hold(b, P.handle)
            return
        if a.prop not in self.props:
            self.fail(f"unknown prop {a.prop}")
        if self.props[a.prop].carrier != b.id:
            self._take(b, a)        # one sets down only what one has: pick it up (or receive it) first
        on = 0.0
        if a.place:
            x, y, level, _ = self.resolve(a.place, b.id)
            x, y, on = self._on_or_below(a.place, x, y, b)
            self._reach(b, x, y, level, 0.6, f"to set the {a.prop} at {a.place}")
        else:
            h = math.radians(b.heading)
            x, y = b.x + 0.5 * math.sin(h), b.y + 0.5 * math.cos(h)
            level = b.level if b.level != STAIR else HALL
        b.gesture(b.t, b.t + P.handle, "set_down", a.prop)
        self.moves.hold(b, P.handle)
        z = (self.reading.hall_height if level == HALL else 0.0) + on
        self.set_down(a.prop, x, y, z, b.t)
        self.hold_things(b, b.t, remove=a.prop)

    # the height of the top of a stand one sets things on (丰: 形蓋似豆而卑, 鄭; its top 0.47 m up)
    TOPS = {"丰": 0.47}

    def _on_or_below(self, place: str, x: float, y: float, b: Body) -> tuple[float, float, float]:
        """Setting a thing at a stand (a prop such as the 丰): on its top (丰上, or the stand named alone),
        or at its foot on the side of the one who sets it down (丰下); (x, y, height above the floor)."""
        base = place[:-1] if place.endswith(("上", "下")) else place
        pr = self.props.get(base)
        if pr is None or pr.kind not in self.TOPS or pr.carrier is not None:
            return x, y, 0.0
        if place.endswith("下"):
            d = math.hypot(b.x - pr.x, b.y - pr.y) or 1.0
            return pr.x + 0.28 * (b.x - pr.x) / d, pr.y + 0.28 * (b.y - pr.y) / d, 0.0
        return pr.x, pr.y, self.TOPS[pr.kind]

    def _keep_stated_facing(self, b: Body) -> None:
        """Hand-overs are done facing the way the text says (北面拜受, 西面拜送), not face to face."""
        ev, h = self.stated.get(b.id, ("", None))
        if h is not None and self.current is not None and ev == self.current.id:
            self.moves.face(b, h)

    def _meet(self, b: Body, other: Body, why: str, roomy: bool = True) -> None:
        """A hand-over: come within arm's reach (:attr:`HAND_REACH`) of the other, wait for him, hand over.
        One who kneels (迭飲於坐) reaches from where he kneels to one who has come up to him.  ``roomy``:
        where the spot within reach is taken, one a little further that leaves room to pass (see
        :meth:`free_spot`); else the nearest free spot, as one who takes another by the hand must."""
        level = other.level if other.level != STAIR else HALL
        if not (b.posture == "kneel" and math.hypot(other.x - b.x, other.y - b.y) <= self.KNEEL_REACH):
            self.walking.approach(b, other.x, other.y, level, self.HAND_REACH, why, roomy)
        b.hold_until(max(b.t, other.t))
        self._keep_stated_facing(b)
        self.moves.hold(b, self.pace.hand_over)

    def _give(self, b: Body, a) -> None:
        if a.other is None:
            self.fail("give needs the person who receives")
        other = self._body(a.other)
        if a.prop and a.prop not in self.props:
            self.fail(f"unknown prop {a.prop}")
        if a.prop and self.props[a.prop].carrier == other.id:
            b.hold_until(other.t)          # he has received it already (受, written before 授): one hand-over
            return
        self._meet(b, other, f"to hand over to {other.id}")
        b.gesture(b.t - self.pace.hand_over, b.t, "hand_over", other.id)
        if a.prop:
            other.gesture(b.t - self.pace.hand_over, b.t, "receive", a.prop)
            self.carry(a.prop, other.id, b.t)
            self.hold_things(b, b.t, remove=a.prop)
            other.hold_until(b.t)
            self.hold_things(other, b.t, add=a.prop)

    def carry(self, prop_id: str, who: str | None, t: float, how: str = "carried") -> None:
        """From time t the prop is in someone's hand (or, ``how="tucked"``, in his belt), or nobody's."""
        pr = self.props.get(prop_id)
        if pr is None:
            self.fail(f"unknown prop {prop_id}")
        if pr.carrier == who and (who is None or pr.how == how):
            return
        if pr.carrier is not None and pr.intervals and pr.intervals[-1][2] is None:
            pr.intervals[-1][2] = t
        if pr.carrier != who:
            pr.carriers.append([round(t, 3), who])
        pr.carrier, pr.how = who, how
        if who is not None:
            pr.intervals.append([who, t, None, how])

    def set_down(self, prop_id: str, x: float, y: float, z: float, t: float, heading: float | None = None,
                 posture: str = "rest") -> None:
        """The prop lies (or, ``posture="upright"``, stands) at (x, y, z) from time t, turned to ``heading``."""
        pr = self.props[prop_id]
        self.carry(prop_id, None, t)
        pr.x, pr.y, pr.z = x, y, z
        if heading is not None:
            pr.heading = heading % 360
        pr.keys.append([round(t, 3), round(x, 4), round(y, 4), round(z, 4), round(pr.heading, 2), posture])
