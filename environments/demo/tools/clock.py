"""Clock tool: the simulated date."""

from silo_gym import kit

get_current_date = kit.clock_tool(

        'Return today\'s date in the CRM as {"today": "YYYY-MM-DD"}. The CRM runs on a fixed '
        "simulated calendar, so use this date (not your own sense of today) when judging ages, "
        "overdue items or close dates. Read-only."

)
