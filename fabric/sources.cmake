# railtune_fabric, railtune_fabric_yaml: written by the fabric-sources engineer
