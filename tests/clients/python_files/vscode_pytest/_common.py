# def send_post_request():
#     return
