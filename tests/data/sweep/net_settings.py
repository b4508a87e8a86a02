"""NCCL's IB transport settings as the stand-in all_reduce_perf (fake_all_reduce_perf) honours them, and the only
published figure for their effect that the stand-in's tables use.

NCCL 2.28.7 reads each with NCCL_PARAM (src/include/param.h:19-27@v2.28.7-1): ncclLoadParam (src/misc/param.cc:
76-93) takes the variable when set and not empty, converts it with strtoll(str, nullptr, 0), prints
"NAME set by environment to V." under NCCL_DEBUG=INFO (subsystem ENV) or, on a conversion error, "Invalid value S
for NAME, using default D." and keeps the default. Where NCCL reads each (src/transport/net_ib.cc@v2.28.7-1):
  NCCL_IB_ADAPTIVE_ROUTING    :132, default -2 = on for an InfiniBand port, off for RoCE (:797-799); read at
                              ncclIbInit, so at every communicator's init, network used or not
  NCCL_IB_QPS_PER_CONNECTION  :1215, default 1; read when a connection is made (:1233, :1421)
  NCCL_IB_SPLIT_DATA_ON_QPS   :2062, default 0; read at the first send or receive (:2121)
  NCCL_IB_AR_THRESHOLD        :130, default 8192; read at a send over a port with adaptive routing (:2100)
The last three are read only when the network carries data: never on one NVLink domain (MNNVL), where NCCL
counts one node and connects every peer over NVLink.

What is published, and so what the tables do (a setting without a published figure changes nothing):
  NCCL_IB_ADAPTIVE_ROUTING=1 with NCCL_IB_SPLIT_DATA_ON_QPS=1: NVIDIA/cluster-readiness-engine PR #287
    (https://github.com/NVIDIA/cluster-readiness-engine/pull/287, merged, 2026-09-02), OCI GB300, four 800 Gb/s
    RoCE rails per node: "Enabling adaptive routing and splitting data across QPs raised peak bus bandwidth by
    about 70% on a multi-rack all-reduce, and neither setting regressed any configuration measured." No GB/s,
    message size or rack count is given; the stand-in applies x1.70 to every size of a multi-node table.
  Either of the two alone: not measured separately; no effect.
  NCCL_IB_QPS_PER_CONNECTION: same PR, "NCCL_IB_QPS_PER_CONNECTION=8 was also evaluated and gave no improvement
    over the existing 4" (its before and after both ran 4); no published figure for other counts on such a
    fabric (Meta's "up to 40%" for AllReduce needs switches that hash on the RoCE destination QP); no effect.
  NCCL_IB_AR_THRESHOLD: no published figure; no effect.
"""

LINK_LAYER = "RoCE"  # the stand-in cluster's NICs: what NCCL prints in "NET/IB : Using [0]mlx5_0:1/RoCE"
INT64_MAX = (1 << 63) - 1

# name -> NCCL's default (NCCL_IB_ADAPTIVE_ROUTING: -2, "by link layer").
DEFAULTS = {
    "NCCL_IB_ADAPTIVE_ROUTING": -2,
    "NCCL_IB_QPS_PER_CONNECTION": 1,
    "NCCL_IB_SPLIT_DATA_ON_QPS": 0,
    "NCCL_IB_AR_THRESHOLD": 8192,
}
# Read at init (every shape) or only once the network carries data (multi-node shapes).
READ_AT_INIT = ("NCCL_IB_ADAPTIVE_ROUTING",)
READ_WHEN_DATA_FLOWS = ("NCCL_IB_QPS_PER_CONNECTION", "NCCL_IB_SPLIT_DATA_ON_QPS", "NCCL_IB_AR_THRESHOLD")

PR_287 = "NVIDIA/cluster-readiness-engine PR #287 (OCI GB300, 4 x 800 Gb/s RoCE rails per node)"
# The published effects: (variant id, the settings it needs, busbw ratio, source). The id is what recorded/ names
# the variant's folder, in the spelling of `railtune sweep run --env` run ids.
EFFECTS = [
    ("ar1-split1", {"NCCL_IB_ADAPTIVE_ROUTING": 1, "NCCL_IB_SPLIT_DATA_ON_QPS": 1}, 1.70,
     PR_287 + ': "raised peak bus bandwidth by about 70% on a multi-rack all-reduce"'),
]
# Why each setting, or value, changes nothing on its own.
NO_EFFECT = {
    "NCCL_IB_ADAPTIVE_ROUTING": PR_287 + " measured it only together with NCCL_IB_SPLIT_DATA_ON_QPS=1",
    "NCCL_IB_SPLIT_DATA_ON_QPS": PR_287 + " measured it only together with NCCL_IB_ADAPTIVE_ROUTING=1",
    "NCCL_IB_QPS_PER_CONNECTION": PR_287 + ": 8 QPs \"gave no improvement over the existing 4\"; no published "
                                  "figure for other counts",
    "NCCL_IB_AR_THRESHOLD": "no published figure",
}
ONE_DOMAIN = ("one NVLink domain: NCCL counts one node (MNNVL) and connects every peer over NVLink, so no IB "
              "setting moves the table")


def strtoll_base0(text):
    """(value, ok) as glibc's strtoll(text, nullptr, 0) gives them: leading space, a sign, 0x/0 prefixes, the
    longest run of digits; no digits give 0 (no error); ok is False where errno would be set (out of range)."""
    i, n = 0, len(text)
    while i < n and text[i] in " \t\n\v\f\r":
        i += 1
    sign = 1
    if i < n and text[i] in "+-":
        sign = -1 if text[i] == "-" else 1
        i += 1
    base, digits = 10, "0123456789"
    if text[i:i + 2].lower() == "0x" and i + 2 < n and text[i + 2].lower() in "0123456789abcdef":
        base, digits, i = 16, "0123456789abcdef", i + 2
    elif text[i:i + 1] == "0":
        base, digits = 8, "01234567"
    j = i
    while j < n and text[j].lower() in digits:
        j += 1
    value = sign * int(text[i:j], base) if j > i else 0
    if value > INT64_MAX or value < -INT64_MAX - 1:
        return (INT64_MAX if sign > 0 else -INT64_MAX - 1), False
    return value, True


def read_param(env, name):
    """(value, info) as ncclLoadParam leaves them: info is the INFO message NCCL prints, or None when unset."""
    text = env.get(name)
    if not text:
        return DEFAULTS[name], None
    value, ok = strtoll_base0(text)
    if not ok:
        return DEFAULTS[name], "Invalid value %s for %s, using default %d." % (text, name, DEFAULTS[name])
    return value, "%s set by environment to %d." % (name, value)


def effective(env, link_layer=LINK_LAYER):
    """Each setting's value as NCCL's IB transport uses it (adaptive routing resolved by the link layer)."""
    values = {name: read_param(env, name)[0] for name in DEFAULTS}
    if values["NCCL_IB_ADAPTIVE_ROUTING"] == -2:
        values["NCCL_IB_ADAPTIVE_ROUTING"] = 1 if link_layer == "IB" else 0
    return values


def variant(env, nodes):
    """(variant id or None, why): the published effect the settings of ENV select on a shape of NODES nodes."""
    if nodes <= 1:
        return None, ONE_DOMAIN
    values = effective(env)
    for effect_id, needs, _, source in EFFECTS:
        if all(values[name] == value for name, value in needs.items()):
            return effect_id, source
    reasons = []
    for name in DEFAULTS:
        message = read_param(env, name)[1]
        if message and message.startswith("Invalid value"):
            reasons.append("%s: NCCL says \"%s\"" % (name, message))
        elif message:
            reasons.append("%s: %s" % (name, NO_EFFECT[name]))
    return None, "; ".join(reasons) or "NCCL's defaults on %s: adaptive routing off, 1 QP per connection" % LINK_LAYER


def ratio_of(effect_id):
    return {e[0]: e[2] for e in EFFECTS}[effect_id]


def effect_ids():
    return [e[0] for e in EFFECTS]
