"""The casebook world's closed vocabulary: concepts (with synonyms, units, value grids and the
direction a regulator bounds them), states, lines of business with their form titles, section
headings and the boilerplate prose that pads paragraphs. Standard library only; fixed data,
no randomness."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Concept:
    """One provision a form can set. ``unit`` is dollars, days or percent; ``bound`` is
    ``minimum`` (a regulator sets a floor: limits, notice periods) or ``maximum`` (a ceiling:
    deductibles, waiting periods); ``grid`` the values a form may choose from."""

    id: str
    name: str
    synonyms: tuple[str, ...]
    unit: str
    bound: str
    grid: tuple[int, ...]
    section: int  # the form section it sits in (see SECTIONS)

    @property
    def names(self) -> tuple[str, ...]:
        return (self.name, *self.synonyms)


_D_LIMIT = (1500, 2000, 2500, 3000, 4000, 5000, 6000, 7500, 8000, 10000, 12500, 15000,
            17500, 20000, 25000, 30000, 35000, 40000, 45000, 50000, 60000, 75000, 80000,
            100000, 125000, 150000)
_D_DEDUCT = (100, 150, 200, 250, 300, 400, 500, 600, 750, 800, 1000, 1250, 1500, 1750,
             2000, 2500, 3000, 3500, 4000, 5000, 6000, 7500, 10000)
_DAYS_MIN = (10, 14, 15, 20, 21, 25, 28, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 90,
             100, 105, 120, 150, 180)
_DAYS_MAX = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 14, 15, 18, 20, 21, 24, 25, 28, 30, 36, 45)
_PCT_MAX = (1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 12, 15, 18, 20, 25)
_PCT_MIN = (5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55, 60, 65, 70, 75, 80, 85, 90)

# Sections of a base form, in order (§1 … §8).
SECTIONS: tuple[str, ...] = (
    "Definitions", "Coverages", "Limits of Insurance", "Deductibles", "Loss Conditions",
    "Additional Coverages", "General Conditions", "Schedule",
)

CONCEPTS: tuple[Concept, ...] = tuple(Concept(*row) for row in (
    ("water_backup", "water backup limit", ("sewer backup sublimit",
     "limit for water that backs up through drains"), "dollars", "minimum", _D_LIMIT, 3),
    ("mold", "mold remediation limit", ("fungus cleanup sublimit",
     "limit for fungi and wet rot"), "dollars", "minimum", _D_LIMIT, 6),
    ("debris", "debris removal limit", ("limit for removing debris",
     "debris clearance sublimit"), "dollars", "minimum", _D_LIMIT, 6),
    ("fire_dept", "fire department service charge limit", ("fire brigade charge sublimit",
     "limit for fire department charges"), "dollars", "minimum", _D_LIMIT, 6),
    ("ordinance", "ordinance or law limit", ("building code upgrade sublimit",
     "limit for increased cost of construction"), "dollars", "minimum", _D_LIMIT, 3),
    ("trees", "trees and shrubs limit", ("landscaping sublimit",
     "limit for outdoor plants"), "dollars", "minimum", _D_LIMIT, 6),
    ("papers", "valuable papers limit", ("records reconstruction sublimit",
     "limit for valuable records"), "dollars", "minimum", _D_LIMIT, 6),
    ("receivables", "accounts receivable limit", ("receivables sublimit",
     "limit for uncollectible accounts"), "dollars", "minimum", _D_LIMIT, 6),
    ("signs", "outdoor signs limit", ("signage sublimit", "limit for exterior signs"),
     "dollars", "minimum", _D_LIMIT, 3),
    ("dishonesty", "employee dishonesty limit", ("employee theft sublimit",
     "limit for fidelity losses"), "dollars", "minimum", _D_LIMIT, 3),
    ("cyber_fraud", "computer fraud limit", ("funds transfer fraud sublimit",
     "limit for fraudulent electronic transfers"), "dollars", "minimum", _D_LIMIT, 3),
    ("medical", "medical payments limit", ("medical expense sublimit",
     "limit for medical expenses of others"), "dollars", "minimum", _D_LIMIT, 3),
    ("rental", "rental reimbursement limit", ("loss of rents sublimit",
     "limit for lost rental income"), "dollars", "minimum", _D_LIMIT, 6),
    ("pollutant", "pollutant cleanup limit", ("contaminant removal sublimit",
     "limit for pollutant clean up and removal"), "dollars", "minimum", _D_LIMIT, 6),
    ("glass", "glass breakage limit", ("plate glass sublimit", "limit for broken glass"),
     "dollars", "minimum", _D_LIMIT, 3),
    ("spoilage", "spoilage limit", ("refrigerated property sublimit",
     "limit for spoiled perishable stock"), "dollars", "minimum", _D_LIMIT, 6),
    ("utility", "utility services limit", ("power interruption sublimit",
     "limit for off-premises utility failure"), "dollars", "minimum", _D_LIMIT, 6),
    ("aop_deductible", "all-peril deductible", ("per-occurrence deductible",
     "deductible applying to each occurrence"), "dollars", "maximum", _D_DEDUCT, 4),
    ("theft_deductible", "theft deductible", ("burglary deductible",
     "deductible for theft losses"), "dollars", "maximum", _D_DEDUCT, 4),
    ("water_deductible", "water damage deductible", ("escape of water deductible",
     "deductible for water damage losses"), "dollars", "maximum", _D_DEDUCT, 4),
    ("glass_deductible", "glass deductible", ("breakage deductible",
     "deductible for glass losses"), "dollars", "maximum", _D_DEDUCT, 4),
    ("cancel_notice", "cancellation notice period", ("notice of cancellation period",
     "period of advance notice before cancellation"), "days", "minimum", _DAYS_MIN, 7),
    ("nonrenew_notice", "nonrenewal notice period", ("notice of nonrenewal period",
     "period of advance notice before nonrenewal"), "days", "minimum", _DAYS_MIN, 7),
    ("proof_of_loss", "proof of loss period", ("period to submit a sworn proof",
     "sworn statement deadline"), "days", "minimum", _DAYS_MIN, 5),
    ("reporting", "claim reporting period", ("notice of claim period",
     "period for reporting a claim"), "days", "minimum", _DAYS_MIN, 5),
    ("appraisal", "appraisal demand period", ("period to demand an appraisal",
     "appraisal request window"), "days", "minimum", _DAYS_MIN, 5),
    ("extended_reporting", "extended reporting period", ("tail coverage period",
     "period of extended claim reporting"), "days", "minimum", _DAYS_MIN, 7),
    ("vacancy", "vacancy period", ("unoccupancy period", "period a building may stand "
     "vacant"), "days", "minimum", _DAYS_MIN, 7),
    ("payment_days", "claim payment period", ("period to pay an agreed claim",
     "settlement payment deadline"), "days", "maximum", _DAYS_MAX, 5),
    ("ack_days", "claim acknowledgment period", ("period to acknowledge a claim",
     "acknowledgment deadline"), "days", "maximum", _DAYS_MAX, 5),
    ("waiting", "business income waiting period", ("waiting period for business income",
     "income loss waiting period"), "days", "maximum", _DAYS_MAX, 4),
    ("hurricane_pct", "hurricane deductible percentage", ("named storm deductible",
     "windstorm percentage deductible"), "percent", "maximum", _PCT_MAX, 4),
    ("quake_pct", "earthquake deductible percentage", ("earth movement deductible",
     "seismic percentage deductible"), "percent", "maximum", _PCT_MAX, 4),
    ("coinsurance", "coinsurance percentage", ("insurance-to-value percentage",
     "coinsurance requirement"), "percent", "minimum", _PCT_MIN, 5),
    ("inflation", "inflation guard percentage", ("automatic increase percentage",
     "annual inflation adjustment"), "percent", "minimum", _PCT_MIN, 3),
    ("loss_of_use", "loss of use percentage", ("additional living expense percentage",
     "fair rental value percentage"), "percent", "minimum", _PCT_MIN, 3),
))
CONCEPT_BY_ID: dict[str, Concept] = {c.id: c for c in CONCEPTS}

#: Regulatory classes: a form puts each of its provisions in class A or B of the provision's
#: kind (its unit and the direction a regulator bounds it); a bulletin bounds a class, e.g.
#: "Class A limit", never a provision by name.
CLASS_NOUN: dict[tuple[str, str], str] = {
    ("dollars", "minimum"): "limit", ("dollars", "maximum"): "deductible",
    ("days", "minimum"): "time limit", ("days", "maximum"): "waiting period",
    ("percent", "minimum"): "percentage", ("percent", "maximum"): "percentage deductible",
}
CLASS_LETTERS: tuple[str, ...] = ("A", "B")


def class_label(concept_id: str, cls: int) -> str:
    """The name of class ``cls`` (0 or 1) of a concept's kind: ``Class B limit``."""
    c = CONCEPT_BY_ID[concept_id]
    return f"Class {CLASS_LETTERS[cls]} {CLASS_NOUN[(c.unit, c.bound)]}"


STATES: tuple[str, ...] = (
    "Texas", "Ohio", "Florida", "Georgia", "Illinois", "Arizona", "Oregon", "Virginia",
    "Colorado", "Kansas", "Nevada", "Maine", "Iowa", "Utah",
)
#: Two-letter codes, used in bulletin numbers.
STATE_CODE: dict[str, str] = {
    "Texas": "TX", "Ohio": "OH", "Florida": "FL", "Georgia": "GA", "Illinois": "IL",
    "Arizona": "AZ", "Oregon": "OR", "Virginia": "VA", "Colorado": "CO", "Kansas": "KS",
    "Nevada": "NV", "Maine": "ME", "Iowa": "IA", "Utah": "UT",
}

#: Lines of business: (code prefix, line name as bulletins write it, form titles).
LINES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    ("CP", "commercial property", ("Building and Personal Property Coverage Form",
     "Condominium Association Coverage Form", "Builders Risk Coverage Form",
     "Legal Liability Coverage Form")),
    ("HO", "homeowners", ("Homeowners Special Form", "Homeowners Comprehensive Form",
     "Unit-Owners Form", "Tenant Contents Form")),
    ("DP", "dwelling fire", ("Dwelling Property Basic Form", "Dwelling Property Broad Form",
     "Dwelling Property Special Form")),
    ("BP", "businessowners", ("Businessowners Coverage Form", "Businessowners Liability Form",
     "Small Contractors Package Form")),
    ("CR", "commercial crime", ("Commercial Crime Coverage Form", "Employee Theft Form",
     "Government Crime Form")),
    ("IM", "inland marine", ("Contractors Equipment Floater", "Valuable Papers Form",
     "Signs Coverage Form")),
)
ROMAN = ("", " II", " III", " IV", " V", " VI", " VII", " VIII", " IX", " X", " XI", " XII")

MONTHS: tuple[str, ...] = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)

# Boilerplate sentences that pad paragraphs. ``{concept}`` names a concept without any value,
# so keyword search finds many paragraphs that set nothing.
FILLER: tuple[str, ...] = (
    "All other terms and conditions of the policy remain unchanged.",
    "Coverage for the {concept} is subject to every exclusion stated elsewhere in this policy.",
    "The insured must take all reasonable steps to protect covered property from further "
    "damage.",
    "Nothing in this paragraph extends coverage to property that is not otherwise covered.",
    "Questions about the {concept} should be directed to the producer of record.",
    "The {concept} applies separately to each described premises unless the Declarations "
    "state otherwise.",
    "Payments made under this provision do not increase any other limit of insurance.",
    "We will not pay for loss caused by wear and tear, rust, corrosion or latent defect.",
    "The provisions of this paragraph are intended to clarify, not to expand, coverage.",
    "Where the {concept} is referenced in underwriting guidance, that guidance is "
    "informational only.",
    "The insured shall cooperate with us in the investigation and settlement of any claim.",
    "This paragraph does not apply to loss resulting from war, nuclear hazard or "
    "governmental action.",
    "Any reference to the {concept} in a certificate of insurance is for convenience only.",
    "Words and phrases in quotation marks have the meaning given in the Definitions section.",
    "Losses will be adjusted with the first named insured on behalf of all insureds.",
    "The {concept} is shown for reference and may be modified by endorsement.",
    "Underwriters reviewing the {concept} should confirm the edition shown in the "
    "Declarations.",
    "Premium for this coverage is included in the policy premium unless otherwise shown.",
    "Claims handlers should document every communication concerning the {concept}.",
    "This provision must be read together with the policy's general conditions.",
)

DEFINITIONS: tuple[str, ...] = (
    "\u201cOccurrence\u201d means an accident, including continuous or repeated exposure to "
    "substantially the same general harmful conditions.",
    "\u201cPremises\u201d means the locations described in the Declarations.",
    "\u201cPeriod of restoration\u201d means the period beginning with the date of direct "
    "physical loss and ending when the property should be repaired.",
    "\u201cPollutants\u201d means any solid, liquid, gaseous or thermal irritant or "
    "contaminant.",
    "\u201cValuable papers and records\u201d means inscribed, printed or written documents "
    "and manuscripts.",
    "\u201cStock\u201d means merchandise held in storage or for sale and raw materials.",
    "\u201cSpecified causes of loss\u201d means fire, lightning, explosion, windstorm or "
    "hail, smoke and vandalism.",
    "\u201cVacant\u201d means a building that does not contain enough business personal "
    "property to conduct customary operations.",
    "\u201cFungi\u201d means any type or form of fungus, including mold or mildew.",
    "\u201cEmployee\u201d means any natural person while in the insured's service.",
)
