"""Word pools the variant generator draws from (``variants.py``).

Everything here is invented, ASCII, and shares no first name, last name or company word with the
canonical world, so no variant can reproduce a canonical person or company by chance (the
canonical answers must not fit a variant). Tuples, in a fixed order: the generator indexes them
with a seeded ``random.Random``, so reordering a pool changes every variant.
"""

from __future__ import annotations

#: First names with the pronouns the instructions use for that person: (subject, object, possessive).
SHE = ("she", "her", "her")
HE = ("he", "him", "his")

FIRST_NAMES: tuple[tuple[str, tuple[str, str, str]], ...] = (
    ("Abena", SHE), ("Adrian", HE), ("Agnes", SHE), ("Aiko", SHE), ("Alberto", HE),
    ("Alina", SHE), ("Amir", HE), ("Anders", HE), ("Anika", SHE), ("Arjun", HE),
    ("Astrid", SHE), ("Aurelio", HE), ("Bastian", HE), ("Beatrix", SHE), ("Benedikt", HE),
    ("Bianca", SHE), ("Bjorn", HE), ("Bronwen", SHE), ("Callum", HE), ("Camila", SHE),
    ("Carmen", SHE), ("Casimir", HE), ("Chiara", SHE), ("Cormac", HE), ("Dalia", SHE),
    ("Damian", HE), ("Dara", SHE), ("Desmond", HE), ("Dmitri", HE), ("Dorothea", SHE),
    ("Eamon", HE), ("Edwin", HE), ("Efua", SHE), ("Elif", SHE), ("Elio", HE),
    ("Elodie", SHE), ("Emil", HE), ("Esther", SHE), ("Ewan", HE), ("Fabian", HE),
    ("Farah", SHE), ("Felix", HE), ("Fiona", SHE), ("Florin", HE), ("Gabriela", SHE),
    ("Gareth", HE), ("Gemma", SHE), ("Gianni", HE), ("Greta", SHE), ("Hamid", HE),
    ("Harriet", SHE), ("Hector", HE), ("Helga", SHE), ("Hiroshi", HE), ("Imani", SHE),
    ("Ines", SHE), ("Isaac", HE), ("Ivana", SHE), ("Jakob", HE), ("Jasmin", SHE),
    ("Joaquin", HE), ("Johanna", SHE), ("Jonas", HE), ("Jun", HE), ("Kamala", SHE),
    ("Karim", HE), ("Katya", SHE), ("Kenji", HE), ("Kiri", SHE), ("Lars", HE),
    ("Leila", SHE), ("Leon", HE), ("Liesel", SHE), ("Lorenzo", HE), ("Lucia", SHE),
    ("Magnus", HE), ("Maren", SHE), ("Marius", HE), ("Maya", SHE), ("Milan", HE),
    ("Mirela", SHE), ("Nadia", SHE), ("Naveen", HE), ("Nell", SHE), ("Niall", HE),
    ("Nika", SHE), ("Nils", HE), ("Oksana", SHE), ("Olu", HE), ("Oriana", SHE),
    ("Oskar", HE), ("Paloma", SHE), ("Pavel", HE), ("Petra", SHE), ("Quentin", HE),
    ("Rafaela", SHE), ("Rania", SHE), ("Rasmus", HE), ("Reza", HE), ("Rhea", SHE),
    ("Rowan", HE), ("Rosalind", SHE), ("Rufus", HE), ("Sabine", SHE), ("Samir", HE),
    ("Sanna", SHE), ("Sebastian", HE), ("Seren", SHE), ("Silas", HE), ("Sofia", SHE),
    ("Soren", HE), ("Stellan", HE), ("Suki", SHE), ("Tariq", HE), ("Tatiana", SHE),
    ("Teodor", HE), ("Thandiwe", SHE), ("Theo", HE), ("Uma", SHE), ("Ulrich", HE),
    ("Valentina", SHE), ("Viktor", HE), ("Vivienne", SHE), ("Wanjiru", SHE), ("Wendell", HE),
    ("Xiomara", SHE), ("Yannick", HE), ("Yasmin", SHE), ("Zane", HE), ("Zofia", SHE),
)

_PLAIN_LAST_NAMES: tuple[str, ...] = (
    "Abernathy", "Achterberg", "Adeyemi", "Alcantara", "Amundsen", "Arkwright", "Asante",
    "Baptiste", "Barrington", "Belanger", "Birkeland", "Blackwood", "Bogdan", "Brennan",
    "Calloway", "Carvalho", "Castellano", "Chandrasekar", "Cisneros", "Costa", "Cruickshank",
    "Dalgaard", "Delacroix", "Dimitrov", "Donnelly", "Dubois", "Eastwood", "Ebrahimi",
    "Eklund", "Esposito", "Falkenberg", "Farouk", "Fernsby", "Fitzgerald", "Forsberg",
    "Galloway", "Gathii", "Goncalves", "Grimaldi", "Gunnarsson", "Hakimi", "Hallstrom",
    "Hargreaves", "Hawthorne", "Holmgren", "Hyland", "Ibarra", "Iversen", "Jablonski",
    "Jaramillo", "Johansson", "Kaczmarek", "Kamau", "Kapoor", "Kavanagh", "Kowalczyk",
    "Kristiansen", "Lachance", "Lindgren", "Lombardi", "Lundqvist", "Macready", "Madsen",
    "Magnusson", "Marchand", "Matsumoto", "Mbeki", "Montague", "Moreau", "Mulholland",
    "Nakamura", "Navarro", "Nieminen", "Novak", "Nwosu", "Oyelaran", "Okafor", "Olander",
    "Ostrowski", "Pacheco", "Pemberton", "Petrakis", "Pietersen", "Quintero", "Radcliffe",
    "Rasmussen", "Ravenscroft", "Renwick", "Rinaldi", "Rosenthal", "Saarinen", "Salazar",
    "Santangelo", "Schwarzkopf", "Sekibo", "Sherwood", "Silvestri", "Sorensen", "Stavros",
    "Sundberg", "Takahashi", "Tavares", "Thorvaldsen", "Toivonen", "Trevelyan", "Uchenna",
    "Valdivia", "Vanterpool", "Varga", "Vasquez", "Villanueva", "Wainwright", "Wallenberg",
    "Westergaard", "Whitmore", "Winterbottom", "Yamazaki", "Yilmaz", "Zamora", "Zielinski",
)

#: Surnames built from a stem and an ending (``Ash`` + ``ford``), for a large pool of plausible
#: names: about 120,000 distinct full names, so two variants rarely share a person.
_STEMS: tuple[str, ...] = (
    "Ash", "Bal", "Bar", "Black", "Brad", "Bram", "Brook", "Cald", "Cart", "Chad", "Cran", "Dal",
    "Dun", "East", "Elm", "Fair", "Fal", "Fern", "Gar", "Glad", "Gold", "Green", "Hal", "Hart",
    "Haw", "Hol", "Kend", "Kings", "Lang", "Lock", "Mar", "Mid", "Mill", "New", "North", "Oak",
    "Pen", "Red", "Ros", "Rut", "Sal", "Shel", "South", "Stan", "Stock", "Thorn", "Wal", "West",
    "Whit", "Win",
)
_ENDINGS: tuple[str, ...] = (
    "borough", "bridge", "brook", "bury", "by", "combe", "croft", "dale", "den", "field", "ford",
    "gate", "ham", "hurst", "ley", "low", "mere", "more", "ridge", "stead", "ton", "wick", "wood",
    "worth",
)
LAST_NAMES: tuple[str, ...] = tuple(
    dict.fromkeys(_PLAIN_LAST_NAMES + tuple(stem + ending for stem in _STEMS for ending in _ENDINGS))
)

#: Company names are ``<word> <sector noun>``, sometimes followed by a corporate suffix.
COMPANY_WORDS: tuple[str, ...] = (
    "Amberly", "Arcadia", "Ashgrove", "Aspenridge", "Auric", "Basalt", "Beacon", "Birchfield",
    "Bluewater", "Boreal", "Brookhaven", "Calder", "Canopy", "Carillon", "Cedarline",
    "Cinder", "Clearbrook", "Cobalt", "Copperleaf", "Coral", "Corvid", "Crimson", "Daybreak",
    "Driftwood", "Eastgate", "Ember", "Evergreen", "Falcon", "Fernhill", "Foxglove", "Galena",
    "Garnet", "Glacier", "Granite", "Greyfield", "Halcyon", "Harrow", "Hollybrook", "Indigo",
    "Ironbark", "Juniper", "Keystone", "Kingfisher", "Lakeshore", "Larkspur", "Limestone",
    "Lodestar", "Magnolia", "Maplewood", "Marigold", "Meadowlark", "Millbrook", "Monarch",
    "Moonstone", "Northgate", "Oakhurst", "Obsidian", "Orchard", "Osprey", "Pinecrest",
    "Polaris", "Quarry", "Quicksilver", "Redwood", "Riverbend", "Rosewood", "Saffron",
    "Sandpiper", "Sapphire", "Silverline", "Skylark", "Slate", "Sparrow", "Starling",
    "Stonebridge", "Summit", "Sycamore", "Tamarack", "Thistle", "Timberline", "Topaz",
    "Trillium", "Tundra", "Upland", "Verdant", "Westbrook", "Willow", "Windward", "Wren",
    "Zephyr",
)

#: Sector nouns with the industry an account in that sector records.
SECTORS: tuple[tuple[str, str], ...] = (
    ("Robotics", "Industrial Automation"),
    ("Freight", "Transportation"),
    ("Logistics", "Transportation"),
    ("Shipping", "Transportation"),
    ("Foods", "Food & Beverage"),
    ("Bakeries", "Food & Beverage"),
    ("Brewing", "Food & Beverage"),
    ("Health", "Healthcare"),
    ("Clinics", "Healthcare"),
    ("Pharmacy", "Healthcare"),
    ("Energy", "Energy"),
    ("Solar", "Energy"),
    ("Utilities", "Energy"),
    ("Analytics", "Software"),
    ("Software", "Software"),
    ("Cloud", "Software"),
    ("Outfitters", "Retail"),
    ("Markets", "Retail"),
    ("Apparel", "Retail"),
    ("Capital", "Financial Services"),
    ("Insurance", "Financial Services"),
    ("Credit Union", "Financial Services"),
    ("Hotels", "Hospitality"),
    ("Resorts", "Hospitality"),
    ("Media", "Media"),
    ("Publishing", "Media"),
    ("Studios", "Media"),
    ("Manufacturing", "Industrial Equipment"),
    ("Machining", "Industrial Equipment"),
    ("Tooling", "Industrial Equipment"),
    ("Agriculture", "Agriculture"),
    ("Farms", "Agriculture"),
    ("Construction", "Construction"),
    ("Builders", "Construction"),
    ("Properties", "Real Estate"),
    ("Realty", "Real Estate"),
    ("Telecom", "Telecommunications"),
    ("Networks", "Telecommunications"),
    ("Sports", "Consumer Goods"),
    ("Home Goods", "Consumer Goods"),
)

#: Corporate suffixes; the short name an instruction uses drops them (``Fjord Maritime Group``
#: is called ``Fjord Maritime``).
COMPANY_SUFFIXES: tuple[str, ...] = ("Group", "Holdings", "Partners", "Co")

#: What a deal is about; an opportunity is named ``<company word> <product>``.
PRODUCTS: tuple[str, ...] = (
    "inventory platform rollout", "warehouse scanning upgrade", "route planning pilot",
    "payroll migration", "customer portal build", "data warehouse expansion",
    "security operations contract", "field service app", "quality inspection system",
    "energy monitoring pilot", "demand forecasting suite", "loyalty program relaunch",
    "booking system upgrade", "analytics workspace", "document management rollout",
    "contact center refresh", "procurement automation", "fleet maintenance tracker",
    "supplier portal", "kiosk network upgrade", "cold storage sensors", "e-signature rollout",
    "training academy license", "network modernization", "predictive maintenance pilot",
    "billing platform migration", "self-checkout expansion", "room automation pilot",
    "content archive project", "compliance reporting suite", "mobile ordering app",
    "time tracking rollout", "sustainability dashboard", "asset tracking deployment",
    "claims processing upgrade", "patient intake system", "crop monitoring pilot",
    "site safety platform", "tenant services portal", "subscription billing revamp",
)

#: Job titles: ``<role> of <area>`` gives a deal name area (``vessel operations``).
TITLE_ROLES: tuple[str, ...] = ("Director of", "Head of", "VP of", "Manager of")
TITLE_AREAS: tuple[str, ...] = (
    "Operations", "Procurement", "Finance", "Engineering", "Facilities", "Supply Chain",
    "Customer Experience", "Information Technology", "Logistics", "Marketing", "Quality",
    "Field Service", "Digital Channels", "Sales Operations", "Infrastructure", "Compliance",
)
PLAIN_TITLES: tuple[str, ...] = ("COO", "CFO", "CTO", "Founder", "Owner", "General Manager")

LEAD_SOURCES: tuple[str, ...] = ("web_form", "referral", "event", "outbound", "partner", "inbound_call")

DISQUALIFY_REASONS: tuple[str, ...] = (
    "No budget this fiscal year.",
    "Chose to build the system in house.",
    "Too small for our minimum deal size.",
    "Signed a three-year contract with another vendor.",
    "Could not reach a decision maker after several attempts.",
    "Outside the regions we serve.",
)

LOST_REASONS: tuple[str, ...] = (
    "Went with a cheaper competitor.",
    "Project cancelled after a reorganisation.",
    "Budget moved to another initiative.",
    "The incumbent vendor matched our offer.",
    "Timeline slipped past the buying window.",
    "Security review raised concerns we could not resolve in time.",
)

#: Activity subjects per type; ``{what}`` is the record's display name.
ACTIVITY_SUBJECTS: dict[str, tuple[str, ...]] = {
    "call": ("Check-in call about {what}", "Pricing questions on {what}", "Call to confirm next steps for {what}"),
    "email": ("Sent the proposal for {what}", "Follow-up email on {what}", "Shared references for {what}"),
    "meeting": ("Workshop on {what}", "Demo session for {what}", "Steering meeting about {what}"),
    "note": ("Notes on {what}", "Internal summary for {what}", "Risks noted for {what}"),
}

ACTIVITY_NOTES: tuple[str, ...] = (
    "The customer wants a phased start and a clear exit clause.",
    "Procurement asked for two more references before moving ahead.",
    "Technical team is happy; the open question is the rollout date.",
    "Budget holder joins the next session.",
    "They compared us with two other vendors and liked the support terms.",
    "Waiting on legal to return the redlined draft.",
    "Pilot scope agreed for a single site first.",
    "They asked for a discount in exchange for a longer term.",
)

AREA_CODES: tuple[str, ...] = (
    "206", "212", "303", "305", "312", "404", "408", "415", "503", "512", "602", "614",
    "617", "702", "713", "720", "757", "801", "813", "858", "916", "919",
)
