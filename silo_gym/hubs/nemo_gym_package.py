"""placeholder"""
from .description import HubDescription
def nemo_gym_files(desc: HubDescription) -> dict[str, str]:
    raise NotImplementedError
def nemo_gym_bundle(desc: HubDescription) -> str:
    raise NotImplementedError
