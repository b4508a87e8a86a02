#!/usr/bin/env python3
# Synthetic sysfs trees for the sysfs source's tests (see README.md). Regenerate with
#   python3 tests/data/discover/sysfs/make_fixtures.py
# It rewrites gb300-1plane/, gb300-2plane/ and roce-h100/ next to this script. The trees keep the
# kernel's layout: /sys/class/<cls>/<name> is a relative symlink into /sys/devices/<PCI path>/<cls>/<name>,
# and each class entry's `device` is a relative symlink back to its PCI function.
import os
import shutil

HERE = os.path.dirname(os.path.abspath(__file__))


def write(path, text):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        f.write(text)


def link(path, target):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.symlink(target, path)


def pci_chain(bus_id, switch):
    """PCI path below /sys/devices for function `bus_id` ("0000:03:00.0").

    switch=True: host bridge -> root port (bus 00) -> switch upstream port (bus 01) -> downstream port
    (bus 02) -> the device (bus 03), the PCIe switch integrated in a ConnectX-8. switch=False: the
    device sits directly on a root port.
    """
    domain, bus, _ = bus_id.split(":")
    chain = ["pci%s:00" % domain, "%s:00:00.0" % domain]
    if switch:
        chain += ["%s:01:00.0" % domain, "%s:02:00.0" % domain]
    return "/".join(chain + [bus_id])


def up(levels):
    return "/".join([".."] * levels)


def gid_text(groups):
    return ":".join("%04x" % g for g in groups) + "\n"


def ipv4_gid(a, b, c, d):
    return gid_text([0, 0, 0, 0, 0, 0xFFFF, (a << 8) | b, (c << 8) | d])


def link_local_gid(guid):
    return gid_text([0xFE80, 0, 0, 0] + [(guid >> s) & 0xFFFF for s in (48, 32, 16, 0)])


def guid_text(guid):
    return ":".join("%04x" % ((guid >> s) & 0xFFFF) for s in (48, 32, 16, 0)) + "\n"


def add_pci_function(root, path, vendor, device, numa):
    base = os.path.join(root, "sys/devices", path)
    write(os.path.join(base, "vendor"), "0x%04x\n" % vendor)
    write(os.path.join(base, "device"), "0x%04x\n" % device)
    write(os.path.join(base, "numa_node"), "%d\n" % numa)
    return base


def add_netdev(root, path, name, speed, state, mac, arphrd, mtu):
    """A netdev below PCI path `path` (None = virtual), listed in /sys/class/net."""
    if path is None:
        rel = "virtual/net/" + name
    else:
        rel = path + "/net/" + name
    base = os.path.join(root, "sys/devices", rel)
    write(os.path.join(base, "speed"), "%d\n" % speed)
    write(os.path.join(base, "operstate"), state + "\n")
    write(os.path.join(base, "address"), mac + "\n")
    write(os.path.join(base, "type"), "%d\n" % arphrd)
    write(os.path.join(base, "mtu"), "%d\n" % mtu)
    if path is not None:
        link(os.path.join(base, "device"), up(3) + "/" + path.split("/")[-1])
    link(os.path.join(root, "sys/class/net", name), up(2) + "/devices/" + rel)


def add_rdma(root, spec):
    """One RDMA device; spec keys: name, bus, switch, device, numa, guid, image, board, fw, netdev,
    layer, state, rate, gids [(gid text, type or None for an unreadable type, ndev)], speed, mac."""
    path = pci_chain(spec["bus"], spec["switch"])
    add_pci_function(root, path, 0x15B3, spec["device"], spec["numa"])
    rel = path + "/infiniband/" + spec["name"]
    base = os.path.join(root, "sys/devices", rel)
    write(os.path.join(base, "node_guid"), guid_text(spec["guid"]))
    write(os.path.join(base, "sys_image_guid"), guid_text(spec["image"]))
    write(os.path.join(base, "board_id"), spec["board"] + "\n")
    write(os.path.join(base, "fw_ver"), spec["fw"] + "\n")
    link(os.path.join(base, "device"), up(3) + "/" + spec["bus"])
    port = os.path.join(base, "ports/1")
    write(os.path.join(port, "state"), spec["state"] + "\n")
    write(os.path.join(port, "link_layer"), spec["layer"] + "\n")
    write(os.path.join(port, "rate"), spec["rate"] + "\n")
    gids = spec["gids"] + [(gid_text([0] * 8), "", "")]  # an unset entry: all zero, as sysfs shows it
    for index, (gid, gid_type, ndev) in enumerate(gids):
        write(os.path.join(port, "gids/%d" % index), gid)
        write(os.path.join(port, "gid_attrs/types/%d" % index), "" if gid_type is None else gid_type + "\n")
        if ndev:
            write(os.path.join(port, "gid_attrs/ndevs/%d" % index), ndev + "\n")
    link(os.path.join(root, "sys/class/infiniband", spec["name"]), up(2) + "/devices/" + rel)
    up_state = "up" if spec["state"].endswith("ACTIVE") else "down"
    arphrd = 32 if spec["layer"] == "InfiniBand" else 1
    add_netdev(root, path, spec["netdev"], spec["speed"], up_state, spec["mac"], arphrd,
               4092 if arphrd == 32 else 9000)


def fresh(name):
    root = os.path.join(HERE, name)
    shutil.rmtree(root, ignore_errors=True)
    os.makedirs(root)
    return root


def management_eth0(root):
    path = "pci0005:00/0005:00:00.0/0005:01:00.0"
    add_pci_function(root, path, 0x8086, 0x1533, 0)
    add_netdev(root, path, "eth0", 1000, "up", "02:00:00:00:05:01", 1, 1500)


def bluefield3(root, name, numa):
    guid = 0xA088C20300B1F300
    add_rdma(root, {
        "name": name, "bus": "0006:01:00.0", "switch": False, "device": 0xA2DC, "numa": numa,
        "guid": guid, "image": guid, "board": "MT_0000000884", "fw": "32.41.1000",
        "netdev": "enP6p1s0f0np0", "layer": "Ethernet", "state": "4: ACTIVE", "rate": "400 Gb/sec (4X NDR)",
        "gids": [(link_local_gid(guid), "IB/RoCE v1", "enP6p1s0f0np0"),
                 (link_local_gid(guid), "RoCE v2", "enP6p1s0f0np0"),
                 (ipv4_gid(10, 200, 0, 17), "IB/RoCE v1", "enP6p1s0f0np0"),
                 (ipv4_gid(10, 200, 0, 17), "RoCE v2", "enP6p1s0f0np0")],
        "speed": 400000, "mac": "a0:88:c2:b1:f3:00"})


# CX8 per rail: bus id and netdev from fabric/profiles/gb300-nvl72.yaml, NUMA node of its Grace.
GB300_NICS = [("0000:03:00.0", "ibp3s0", 0), ("0002:03:00.0", "ibP2p3s0", 0),
              ("0010:03:00.0", "ibP16p3s0", 1), ("0012:03:00.0", "ibP18p3s0", 1)]


def gb300_1plane():
    root = fresh("gb300-1plane")
    for rail, (bus, netdev, numa) in enumerate(GB300_NICS):
        guid = 0xB83FD20300A1B200 + rail * 0x10
        add_rdma(root, {
            "name": "mlx5_%d" % rail, "bus": bus, "switch": True, "device": 0x1023, "numa": numa,
            "guid": guid, "image": guid, "board": "NVD0000000087", "fw": "40.45.1200", "netdev": netdev,
            "layer": "InfiniBand", "state": "4: ACTIVE", "rate": "800 Gb/sec (4X XDR)",
            "gids": [(link_local_gid(guid), "IB/RoCE v1", "")], "speed": 800000,
            "mac": "00:00:10:49:fe:80:00:00:00:00:00:00:b8:3f:d2:03:00:a1:b2:%02x" % (rail * 0x10)})
    bluefield3(root, "mlx5_4", 0)
    management_eth0(root)


def gb300_2plane():
    root = fresh("gb300-2plane")
    for rail, (bus, netdev, numa) in enumerate(GB300_NICS):
        image = 0xB83FD20300A1C200 + rail * 0x10
        for plane in (0, 1):
            guid = image + plane
            add_rdma(root, {
                "name": "mlx5_%d" % (rail * 2 + plane), "bus": bus[:-1] + str(plane), "switch": True,
                "device": 0x1023, "numa": numa, "guid": guid, "image": image, "board": "NVD0000000087",
                "fw": "40.45.1200", "netdev": "%sf%d" % (netdev, plane), "layer": "InfiniBand",
                "state": "4: ACTIVE", "rate": "400 Gb/sec (2X XDR)",
                "gids": [(link_local_gid(guid), "IB/RoCE v1", "")], "speed": 400000,
                "mac": "00:00:10:49:fe:80:00:00:00:00:00:00:b8:3f:d2:03:00:a1:c2:%02x" % (rail * 0x10 + plane)})
    bluefield3(root, "mlx5_8", 0)
    management_eth0(root)


# DGX H100 compute NICs (fabric/profiles/dgx-h100.yaml): HCA name, bus id, NUMA node.
H100_NICS = [("mlx5_0", "0000:18:00.0", 0), ("mlx5_3", "0000:40:00.0", 0), ("mlx5_4", "0000:4f:00.0", 0),
             ("mlx5_5", "0000:5e:00.0", 0), ("mlx5_6", "0000:9a:00.0", 1), ("mlx5_9", "0000:c0:00.0", 1),
             ("mlx5_10", "0000:ce:00.0", 1), ("mlx5_11", "0000:dc:00.0", 1)]


def roce_h100():
    root = fresh("roce-h100")
    for rail, (name, bus, numa) in enumerate(H100_NICS):
        guid = 0x946DAE0300C0D000 + rail
        netdev = "enp%ds0np0" % int(bus.split(":")[1], 16)
        down = rail == 7  # the last rail's port is down: no link, netdev down
        types = ["IB/RoCE v1", "RoCE v2", "IB/RoCE v1", "RoCE v2"]
        if rail == 0:
            types[3] = None  # type hidden (a container): the file reads nothing
        gids = [(link_local_gid(guid), types[0], netdev), (link_local_gid(guid), types[1], netdev),
                (ipv4_gid(10, 0, rail, 11), types[2], netdev), (ipv4_gid(10, 0, rail, 11), types[3], netdev)]
        add_rdma(root, {
            "name": name, "bus": bus, "switch": True, "device": 0x1021, "numa": numa, "guid": guid, "image": guid,
            "board": "MT_0000000838", "fw": "28.39.2048", "netdev": netdev, "layer": "Ethernet",
            "state": "1: DOWN" if down else "4: ACTIVE", "rate": "400 Gb/sec (4X NDR)",
            "gids": gids[:2] if down else gids, "speed": -1 if down else 400000,
            "mac": "94:6d:ae:c0:d0:%02x" % rail})
    add_netdev(root, None, "docker0", -1, "down", "02:42:ac:11:00:01", 1, 1500)
    add_netdev(root, None, "lo", -1, "unknown", "00:00:00:00:00:00", 772, 65536)


if __name__ == "__main__":
    gb300_1plane()
    gb300_2plane()
    roce_h100()
