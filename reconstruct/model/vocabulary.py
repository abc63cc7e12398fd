"""The project's words, declared once: the postures of people and of props, what the hands do (gestures),
the kinds of props and of landmarks, the sides and the officers the code itself names.

Every stage uses these enumerations: the rite script's loader validates against them, the planner writes
them, the plan's reader checks a saved plan with them, the outputs read them.  They are ``str`` enums, so a
member is the word itself (``Posture.KNEEL == "kneel"``) and the plan's JSON is unchanged by them.  A new
word is added here, and documented in ``docs/plan-format.md`` (postures, gestures) or
``docs/readings.md`` (landmark kinds).
"""
from __future__ import annotations

from enum import StrEnum


class Posture(StrEnum):
    """How a person is at a key of his track."""

    STAND = "stand"
    WALK = "walk"
    KNEEL = "kneel"             # 坐: kneeling, sitting back on the heels
    BOW = "bow"                 # 揖: a standing bow
    KNEEL_BOW = "kneel_bow"     # 拜: a kneeling bow, the head down to the hands


class PropPosture(StrEnum):
    """How a prop is at a key of its track."""

    REST = "rest"               # lying where it was set down
    CARRIED = "carried"         # in someone's hand
    TUCKED = "tucked"           # in someone's belt (搢)
    FLIGHT = "flight"           # an arrow in the air
    UPRIGHT = "upright"         # standing (the eight 算 in the 中)


class GestureKind(StrEnum):
    """What the hands do over a time (plan-format "What hands do"); :data:`GESTURES` glosses each."""

    NOCK = "nock"
    DRAW = "draw"
    LOOSE = "loose"
    RAISE_FLAG = "raise_flag"
    LOWER_FLAG = "lower_flag"
    CALL = "call"
    LAY_TALLY = "lay_tally"
    TAKE_TALLIES = "take_tallies"
    COUNT_TALLIES = "count_tallies"
    DRINK = "drink"
    SACRIFICE = "sacrifice"
    TAKE_LUNG = "take_lung"
    POUR = "pour"
    WASH = "wash"
    HAND_OVER = "hand_over"
    RECEIVE = "receive"
    BARE = "bare"
    COVER = "cover"
    GEAR_ON = "gear_on"
    GEAR_OFF = "gear_off"
    STRING_BOW = "string_bow"
    UNSTRING_BOW = "unstring_bow"
    TAKE_ARROW = "take_arrow"
    SALUTE = "salute"
    HOLD_ARROW = "hold_arrow"
    TUCK_ARROWS = "tuck_arrows"
    LAY_ARROWS = "lay_arrows"
    COUNT_ARROWS = "count_arrows"
    RETURN_TALLIES = "return_tallies"
    TIE_ROPE = "tie_rope"
    FILL_HOLDER = "fill_holder"
    TAKE = "take"
    SET_DOWN = "set_down"
    ANNOUNCE = "announce"
    PLAY = "play"
    HOLD_WITH_BOW = "hold_with_bow"
    UNTIE_ARROWS = "untie_arrows"
    UNTIE_ROPE = "untie_rope"
    BIND_ARROWS = "bind_arrows"
    TAKE_OFF_SHOES = "take_off_shoes"
    SERVE = "serve"
    POINT_ARROW = "point_arrow"
    LOWER_FLAG_REST = "lower_flag_rest"
    BOW = "bow"
    KNEEL_BOW = "kneel_bow"
    LEAD = "lead"
    DRAW_IN = "draw_in"


G = GestureKind
GESTURES: dict[GestureKind, str] = {
    G.NOCK: "搭矢 — an arrow set on the string", G.DRAW: "the bow drawn", G.LOOSE: "the arrow leaves",
    G.RAISE_FLAG: "舉旌以宮", G.LOWER_FLAG: "偃旌以商", G.CALL: "獲 — the marker's cry",
    G.LAY_TALLY: "釋獲 — one 算 set down", G.TAKE_TALLIES: "算 taken up", G.COUNT_TALLIES: "數獲",
    G.DRINK: "the cup at the mouth", G.SACRIFICE: "祭 — a morsel or a drop set down as an offering",
    G.TAKE_LUNG: "取肺", G.POUR: "酌", G.WASH: "洗", G.HAND_OVER: "授", G.RECEIVE: "受",
    G.BARE: "袒", G.COVER: "襲", G.GEAR_ON: "決遂", G.GEAR_OFF: "說決拾", G.STRING_BOW: "張弓",
    G.UNSTRING_BOW: "弛弓", G.TAKE_ARROW: "one arrow taken up", G.SALUTE: "揖 (not a posture change)",
    G.HOLD_ARROW: "挾 — an arrow across the bow", G.TUCK_ARROWS: "搢三挾一個", G.LAY_ARROWS: "委矢",
    G.COUNT_ARROWS: "乘矢", G.RETURN_TALLIES: "反委之", G.FILL_HOLDER: "實八算于中", G.TAKE: "取",
    G.SET_DOWN: "奠 / 設", G.ANNOUNCE: "告 (the words in object)", G.PLAY: "鼓瑟 / 歌",
    G.HOLD_WITH_BOW: "兼諸弦弣 — arrows held along string and grip", G.UNTIE_ARROWS: "說矢束",
    G.UNTIE_ROPE: "說侯之左下綱", G.TIE_ROPE: "繫綱 / 掩束 — a rope of the 侯 tied", G.BIND_ARROWS: "兼束之以茅，上握焉 — the 大夫's arrows bound with a band of grass above the grip", G.TAKE_OFF_SHOES: "說屨", G.SERVE: "羞 — dishes carried up",
    G.POINT_ARROW: "兼諸弦，面鏃 — the arrow held along the string, point up", G.LOWER_FLAG_REST: "偃旌 at the 乏",
    G.BOW: "揖 made to someone (object: the person)", G.KNEEL_BOW: "拜 made to someone (object: the person)",
    G.LEAD: "相 — leading someone by the hand (object: the person led)",
    G.DRAW_IN: "厭 — the joined hands drawn in, bidding others come (鄭: 引手曰厭; object: the one bidden)",
}
del G


class PropKind(StrEnum):
    """What a prop is: the trailing noun of its id (觯, 大夫觯 …; 宾矢1 is a 矢)."""

    觯 = "觯"       # the drinking cup (zhi)
    爵 = "爵"       # the cup of the offering (jue)
    丰 = "丰"       # the stand the forfeit cup is set on
    荐 = "荐"       # dried meat and pickles served on a mat
    俎 = "俎"       # the meat stand
    羞 = "羞"       # dishes carried up
    弓 = "弓"       # a bow
    矢 = "矢"       # an arrow
    扑 = "扑"       # the 司射's rod
    算 = "算"       # a tally
    旌 = "旌"       # the marker's flag
    中 = "中"       # the tally holder
    楅 = "楅"       # the arrow rack
    侯 = "侯"       # the target (as a prop: taken down, 说侯)
    瑟 = "瑟"       # the musicians' zither (held before the chest)
    笙 = "笙"       # the mouth organ
    幂 = "幂"       # the cover of the wine jars (記: 尊綌冪，賓至，徹之 — of coarse hemp-cloth, taken off when the guest comes)
    # the things set out before the guests come (乃席賓 … 乏參侯道): carried from where they are kept and laid
    # at their places, where they become the reading's fixtures (a prop named as its landmark: 宾席, 尊, 洗 …)
    席 = "席"       # a mat (宾席, 众宾席1, 主人席, 工席)
    尊 = "尊"       # the wine: 兩壺斯禁
    篚 = "篚"       # a basket (上篚, 篚)
    洗 = "洗"       # the basin
    水 = "水"       # the water jar
    县 = "县"       # the chimes on their frame
    乏 = "乏"       # the marker's screen


# The things set out before the guests come that, laid at their places, are the reading's fixtures: a prop of
# these kinds named as a landmark is that landmark once it lies there (the planner places by the landmark,
# the outputs draw the landmark's body where the prop is).
SET_OUT: frozenset[PropKind] = frozenset({PropKind.席, PropKind.尊, PropKind.篚, PropKind.洗, PropKind.水,
                                          PropKind.县, PropKind.乏})


class LandmarkKind(StrEnum):
    """What a landmark of a reading is (a reading's TOML may name the kinds a layout file can place)."""

    MARK = "mark"               # a named point (序端, 侯中, 门外 …)
    FORMATION = "formation"     # the first place of a file of standing places
    HALL = "hall"
    EDGE = "edge"               # the hall's front edge (堂廉)
    EAVE = "eave"
    PURLIN = "purlin"           # 楣, 棟 …
    WALL = "wall"
    COLUMN = "column"
    ROOM = "room"
    STAIR = "stair"
    GATE = "gate"
    COURT = "court"
    TARGET = "target"           # the 侯
    POST = "post"               # the target's posts
    WU = "wu"                   # an archer's 物, the cross drawn on the hall
    MAT = "mat"
    BASIN = "basin"             # the 洗
    JAR = "jar"
    BASKET = "basket"           # 篚
    WINE = "wine"               # the 尊
    CHIMES = "chimes"
    DRUM = "drum"
    RACK = "rack"               # the 楅
    DEER = "deer"               # the 中 (a crouching deer)
    SCREEN = "screen"           # the 乏


# Landmark kinds that block walking (on their own level): the planner routes round them, the audit
# finds anyone inside them.
BLOCKING: frozenset[LandmarkKind] = frozenset({
    LandmarkKind.WALL, LandmarkKind.COLUMN, LandmarkKind.ROOM, LandmarkKind.TARGET, LandmarkKind.POST,
    LandmarkKind.SCREEN, LandmarkKind.BASIN, LandmarkKind.JAR, LandmarkKind.BASKET, LandmarkKind.CHIMES,
    LandmarkKind.RACK, LandmarkKind.DEER, LandmarkKind.WINE})


class EvidenceKind(StrEnum):
    """What an element of a reading rests on (issue 32; ``reconstruct.model.evidence``): a source's kind,
    or this project's choice."""

    TEXT = "text"                       # the 經 and 記 (and other classics: 鄉飲酒禮, 考工記)
    COMMENTARY = "commentary"           # 鄭玄注
    SUBCOMMENTARY = "subcommentary"     # 賈公彥疏
    LATER = "later"                     # a later reading: 義疏, 敖繼公, 朱子, 江永, 舊圖 …
    EXCAVATION = "excavation"           # 鳳雛, bronze rulers
    CHOSEN = "chosen"                   # this project's choice, with its reason


class Side(StrEnum):
    """Whose party a person belongs to."""

    GUEST = "宾党"
    HOST = "主党"
    NONE = ""


class Role(StrEnum):
    """The officers whose acts the code itself performs or looks for (beyond what the script says)."""

    主人 = "主人"         # the host: goes up and down by the 阼阶
    宾 = "宾"             # the principal guest
    司射 = "司射"         # director of archery
    司马 = "司马"         # master of the range
    获者 = "获者"         # the marker: calls and raises the flag for each hit
    释获者 = "释获者"     # the tally keeper: lays a tally for each hit on the beat
