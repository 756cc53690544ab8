"""Tool registry of the demo environment: the 42 CRM tools, in registration order."""

from .accounts import create_account, get_account, list_accounts, search_accounts, update_account
from .activities import complete_activity, get_activity, list_activities, log_activity, schedule_followup
from .clock import get_current_date
from .contacts import (
    create_contact,
    get_contact,
    link_contact_to_account,
    list_contacts,
    search_contacts,
    update_contact,
)
from .leads import (
    convert_lead,
    create_lead,
    disqualify_lead,
    get_lead,
    list_leads,
    qualify_lead,
    search_leads,
    update_lead,
)
from .opportunities import (
    advance_opportunity_stage,
    close_opportunity_lost,
    close_opportunity_won,
    create_opportunity,
    get_opportunity,
    list_opportunities,
    list_stages,
    reassign_opportunity,
    search_opportunities,
    set_opportunity_stage,
    update_opportunity,
)
from .reporting import forecast_report, pipeline_summary, rep_performance, stale_opportunities
from .users import get_user, list_users

tools = [
    get_current_date,
    list_users,
    get_user,
    list_accounts,
    search_accounts,
    get_account,
    create_account,
    update_account,
    list_contacts,
    search_contacts,
    get_contact,
    create_contact,
    update_contact,
    link_contact_to_account,
    list_leads,
    search_leads,
    get_lead,
    create_lead,
    update_lead,
    qualify_lead,
    disqualify_lead,
    convert_lead,
    list_stages,
    list_opportunities,
    search_opportunities,
    get_opportunity,
    create_opportunity,
    update_opportunity,
    set_opportunity_stage,
    advance_opportunity_stage,
    close_opportunity_won,
    close_opportunity_lost,
    reassign_opportunity,
    list_activities,
    get_activity,
    log_activity,
    schedule_followup,
    complete_activity,
    pipeline_summary,
    forecast_report,
    rep_performance,
    stale_opportunities,
]
