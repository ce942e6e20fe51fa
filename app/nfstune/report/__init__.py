"""A session as one self-contained HTML file to send on: the recommendation, the ceilings, the charts."""
