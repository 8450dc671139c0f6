import torch


def get_inputs(config):
    g = torch.Generator(device=config["device"])
    g.manual_seed(config["seed"])
    rows, cols = int(config["rows"]), int(config["cols"])
    x = torch.randn((rows, cols), generator=g, dtype=torch.float32, device=config["device"])
    x.mul_(float(config["logit_scale"]))
    return [x]
