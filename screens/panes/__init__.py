"""The main screen's panes, one widget each: each owns its CSS and takes its data through reactive
attributes bound to the screen's (MainScreen.session, .verdicts, .use, .indexes), so the app
changes data and never calls a refresh method on a screen."""

from screens.panes.diagnosis import DiagnosisPane
from screens.panes.overview import OverviewPane
from screens.panes.queries import QueryListPane
from screens.panes.sweeps import SweepsPane

__all__ = ["DiagnosisPane", "OverviewPane", "QueryListPane", "SweepsPane"]
