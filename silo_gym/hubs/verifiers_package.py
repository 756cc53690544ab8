"""placeholder"""
from .description import HubDescription
def verifiers_files(desc: HubDescription) -> dict[str, str]:
    raise NotImplementedError
def verifiers_bundle(desc: HubDescription) -> str:
    raise NotImplementedError
